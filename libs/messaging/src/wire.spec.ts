import 'reflect-metadata';
import { PAYLOAD_BOUNDS } from '@ioa/contracts';
import { decodeJson, MalformedPayload } from './wire.js';
import { NatsJsonSerializer } from './nats-json.serializer.js';

const encoder = new TextEncoder();

describe('the JSON wire', () => {
  it('reads an empty body as {} and JSON as itself', () => {
    expect(decodeJson(undefined)).toEqual({});
    expect(decodeJson(encoder.encode('{"a":[1,2]}'))).toEqual({ a: [1, 2] });
  });

  it('answers a body that is not JSON with MALFORMED_PAYLOAD, quoting at most a short reason', () => {
    const decoded = decodeJson(encoder.encode(`{"a": ${'x'.repeat(10_000)}`));
    expect(decoded).toBeInstanceOf(MalformedPayload);
    const error = (decoded as MalformedPayload).toError();
    expect(error.code).toBe('MALFORMED_PAYLOAD');
    expect(error.message.length).toBeLessThan(300);
  });

  it('refuses a body over the size bound without parsing it', () => {
    const decoded = decodeJson(new Uint8Array(PAYLOAD_BOUNDS.maxBytes + 1).fill(0x7b));
    expect(decoded).toBeInstanceOf(MalformedPayload);
    expect((decoded as MalformedPayload).toError()).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it("keeps the Nest transport's replies under the broker's max_payload", () => {
    const serializer = new NatsJsonSerializer();
    serializer.limitTo(512);
    const { data } = serializer.serialize({ response: { text: 'y'.repeat(4_000) } } as never);
    expect(data.length).toBeLessThanOrEqual(512);
    expect(JSON.parse(new TextDecoder().decode(data))).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    const small = serializer.serialize({ response: { accepted: true } } as never);
    expect(JSON.parse(new TextDecoder().decode(small.data))).toEqual({ ok: true, data: { accepted: true } });
  });
});
