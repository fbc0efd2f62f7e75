import { createHash, timingSafeEqual } from 'node:crypto';

/** PostgreSQL's protocol version 3.0, as a StartupMessage carries it in bytes 4..7. */
const PROTOCOL_3_0 = 196_608;
/** AuthenticationCleartextPassword's code in an `R` message. */
const AUTH_CLEARTEXT_PASSWORD = 3;
const PASSWORD_MESSAGE = 'p'.charCodeAt(0);

/** What the gate does with one frontend message of a connection. */
export type GateDecision =
  /** Authenticated: the message goes to the database as it is. */
  | { kind: 'pass' }
  /** Send these bytes back and keep the message from the database (the password request). */
  | { kind: 'reply'; bytes: Uint8Array }
  /** The password was right: send the connection's startup message to the database now. */
  | { kind: 'startup'; message: Uint8Array }
  /** Send this FATAL error and close the connection. */
  | { kind: 'refuse'; bytes: Uint8Array; reason: string };

/**
 * Password authentication in front of PGlite, which itself trusts every connection. PostgreSQL's own flow: the
 * client's StartupMessage is answered with AuthenticationCleartextPassword, the PasswordMessage is checked, and
 * only then is the StartupMessage run by the database (which answers AuthenticationOk, its parameters and
 * ReadyForQuery). Cleartext is what the embedded server can offer without writing SCRAM by hand; it listens on
 * loopback only, so the password never leaves the machine.
 *
 * One gate serves every connection of a server; the caller says when a connection is gone (`forget`).
 */
export class PostgresPasswordGate {
  private readonly expectedDigest: Buffer;
  private readonly admitted = new Set<number>();
  private readonly awaitingPassword = new Map<number, Uint8Array>();

  constructor(password: string) {
    if (password.length === 0) throw new Error('the embedded PostgreSQL needs a non-empty password');
    this.expectedDigest = digest(password);
  }

  decide(connection: number, message: Uint8Array): GateDecision {
    if (this.admitted.has(connection)) return { kind: 'pass' };
    const startup = this.awaitingPassword.get(connection);
    if (startup === undefined) {
      if (!isStartupMessage(message)) return refusal('the connection must start with a StartupMessage');
      this.awaitingPassword.set(connection, message);
      return { kind: 'reply', bytes: authenticationRequest(AUTH_CLEARTEXT_PASSWORD) };
    }
    this.awaitingPassword.delete(connection);
    const password = passwordOf(message);
    if (password === undefined) return refusal('expected a password message');
    if (!timingSafeEqual(digest(password), this.expectedDigest)) {
      return refusal(`password authentication failed for user "${userOf(startup) ?? 'postgres'}"`);
    }
    this.admitted.add(connection);
    return { kind: 'startup', message: startup };
  }

  /** The connection closed: a new one with the same number must authenticate again. */
  forget(connection: number): void {
    this.admitted.delete(connection);
    this.awaitingPassword.delete(connection);
  }
}

// Comparing fixed-length digests keeps the comparison's time independent of where the strings differ.
function digest(password: string): Buffer {
  return createHash('sha256').update(password, 'utf8').digest();
}

function isStartupMessage(message: Uint8Array): boolean {
  return message.length >= 8 && view(message).getInt32(4) === PROTOCOL_3_0;
}

/** The password of a PasswordMessage (`p`, length, NUL-terminated string), or undefined for any other message. */
function passwordOf(message: Uint8Array): string | undefined {
  if (message.length < 6 || message[0] !== PASSWORD_MESSAGE) return undefined;
  const end = message.indexOf(0, 5);
  if (end === -1) return undefined;
  return Buffer.from(message.subarray(5, end)).toString('utf8');
}

/** The `user` parameter of a StartupMessage (pairs of NUL-terminated strings after the protocol version). */
function userOf(startup: Uint8Array): string | undefined {
  const fields = Buffer.from(startup.subarray(8)).toString('utf8').split('\0');
  const index = fields.indexOf('user');
  return index >= 0 && index % 2 === 0 ? fields[index + 1] : undefined;
}

function authenticationRequest(code: number): Uint8Array {
  const bytes = new Uint8Array(9);
  bytes[0] = 'R'.charCodeAt(0);
  view(bytes).setInt32(1, 8);
  view(bytes).setInt32(5, code);
  return bytes;
}

/** A FATAL ErrorResponse with SQLSTATE 28P01 (invalid_password), as PostgreSQL sends it. */
function refusal(reason: string): GateDecision {
  const fields = Buffer.concat(
    [
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', '28P01'],
      ['M', reason],
    ].map(([code, value]) => Buffer.from(`${code}${value}\0`, 'utf8')),
  );
  const body = Buffer.concat([fields, Buffer.from([0])]);
  const bytes = new Uint8Array(1 + 4 + body.length);
  bytes[0] = 'E'.charCodeAt(0);
  view(bytes).setInt32(1, 4 + body.length);
  bytes.set(body, 5);
  return { kind: 'refuse', bytes, reason };
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
