import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ContractError, type PrincipalRole } from '@ioa/contracts';
import { GatewayDatabase } from '../database/gateway-database.js';
import { AccountEntity } from './account.entity.js';
import { apiKeyPrefixOf, generateApiKey, hashApiKey } from './api-key.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { authConfig } from './auth.config.js';
import {
  DEFAULT_KEY_LIFETIME_DAYS,
  type AccountDto,
  type ApiKeyDto,
  type CreateAccountRequestDto,
  type CreateApiKeyRequestDto,
  type CreatedApiKeyDto,
} from './dto/accounts.dto.js';
import { isAdmin, LOCAL_ADMIN_ACCOUNT_ID, type AuthenticatedPrincipal } from './principal.js';

const DAY_MS = 86_400_000;
/** The name of the key IOA_ADMIN_API_KEY provisions: the one key a change of the variable replaces. */
const ADMIN_KEY_NAME = 'IOA_ADMIN_API_KEY';
/** `last_used_at` is written at most this often per key, so authenticating is not a write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

function toAccountDto(account: AccountEntity): AccountDto {
  return { id: account.id, name: account.name, createdAt: account.createdAt.toISOString() };
}

function toApiKeyDto(key: ApiKeyEntity): ApiKeyDto {
  return {
    id: key.id,
    accountId: key.accountId,
    name: key.name,
    role: key.role,
    prefix: key.keyPrefix,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  };
}

/** Accounts and their API keys: creation, listing, revocation, and finding the key a request presents. */
@Injectable()
export class AccountsService {
  private readonly logger = new Logger(AccountsService.name);
  private provisioned: Promise<void> | undefined;

  constructor(
    private readonly database: GatewayDatabase,
    @Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>,
  ) {}

  async createAccount(request: CreateAccountRequestDto): Promise<AccountDto> {
    const manager = await this.manager();
    const account = manager.create(AccountEntity, { id: request.id, name: request.name.trim(), createdAt: new Date() });
    const inserted = await manager
      .createQueryBuilder()
      .insert()
      .into(AccountEntity)
      .values(account)
      .orIgnore()
      .returning('id')
      .execute();
    if ((inserted.raw as unknown[]).length === 0) {
      throw new ContractError('CONFLICT', `Account ${request.id} already exists`, { accountId: request.id });
    }
    return toAccountDto(account);
  }

  async listAccounts(): Promise<AccountDto[]> {
    const manager = await this.manager();
    return (await manager.find(AccountEntity, { order: { createdAt: 'ASC', id: 'ASC' } })).map(toAccountDto);
  }

  /** A new key for an account; its text is returned this once. Only an admin may mint admin keys. */
  async createKey(
    accountId: string,
    request: CreateApiKeyRequestDto,
    caller: AuthenticatedPrincipal,
  ): Promise<CreatedApiKeyDto> {
    this.checkAccess(accountId, caller);
    const role: PrincipalRole = request.role ?? 'member';
    if (role === 'admin' && !isAdmin(caller)) {
      throw new ContractError('FORBIDDEN', 'Only an admin may create admin keys');
    }
    const manager = await this.manager();
    await this.requireAccount(accountId);
    const key = generateApiKey();
    const now = new Date();
    const entity = manager.create(ApiKeyEntity, {
      id: randomUUID(),
      accountId,
      name: request.name.trim(),
      role,
      keyHash: hashApiKey(key),
      keyPrefix: apiKeyPrefixOf(key),
      createdAt: now,
      expiresAt: new Date(now.getTime() + (request.expiresInDays ?? DEFAULT_KEY_LIFETIME_DAYS) * DAY_MS),
      revokedAt: null,
      lastUsedAt: null,
    });
    await manager.insert(ApiKeyEntity, entity);
    return { ...toApiKeyDto(entity), key };
  }

  async listKeys(accountId: string, caller: AuthenticatedPrincipal): Promise<ApiKeyDto[]> {
    this.checkAccess(accountId, caller);
    await this.requireAccount(accountId);
    const manager = await this.manager();
    const keys = await manager.find(ApiKeyEntity, { where: { accountId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return keys.map(toApiKeyDto);
  }

  /** Revokes a key at once (the next request with it is a 401); revoking twice changes nothing. */
  async revokeKey(accountId: string, keyId: string, caller: AuthenticatedPrincipal): Promise<ApiKeyDto> {
    this.checkAccess(accountId, caller);
    const manager = await this.manager();
    const key = await manager.findOneBy(ApiKeyEntity, { id: keyId, accountId });
    if (!key) throw ContractError.notFound('API key', keyId);
    if (!key.revokedAt) {
      key.revokedAt = new Date();
      await manager.update(ApiKeyEntity, { id: key.id }, { revokedAt: key.revokedAt });
    }
    return toApiKeyDto(key);
  }

  /** The principal of a presented API key, or UNAUTHENTICATED saying why not (unknown, revoked or expired). */
  async authenticate(key: string): Promise<AuthenticatedPrincipal> {
    const manager = await this.manager();
    const found = await manager.findOneBy(ApiKeyEntity, { keyHash: hashApiKey(key) });
    if (!found) throw new ContractError('UNAUTHENTICATED', 'Unknown API key');
    const now = new Date();
    if (found.revokedAt) throw new ContractError('UNAUTHENTICATED', 'This API key was revoked');
    if (found.expiresAt && found.expiresAt <= now) {
      throw new ContractError('UNAUTHENTICATED', `This API key expired at ${found.expiresAt.toISOString()}`);
    }
    if (!found.lastUsedAt || now.getTime() - found.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      // Best effort: a lost "last used" write must not fail the request it describes.
      manager
        .update(ApiKeyEntity, { id: found.id }, { lastUsedAt: now })
        .catch((error: unknown) => this.logger.warn(`Could not record the use of a key: ${(error as Error).message}`));
    }
    return { accountId: found.accountId, role: found.role, via: 'api-key', keyId: found.id };
  }

  /** A member acts on its own account only; for another account's keys it is told nothing exists. */
  private checkAccess(accountId: string, caller: AuthenticatedPrincipal): void {
    if (!isAdmin(caller) && caller.accountId !== accountId) throw ContractError.notFound('Account', accountId);
  }

  private async requireAccount(accountId: string): Promise<void> {
    const manager = await this.manager();
    if (!(await manager.existsBy(AccountEntity, { id: accountId }))) throw ContractError.notFound('Account', accountId);
  }

  /** The database, with IOA_ADMIN_API_KEY provisioned once it is reachable. */
  private async manager() {
    let dataSource;
    try {
      dataSource = await this.database.dataSource();
    } catch (error) {
      throw new ContractError('UNAVAILABLE', (error as Error).message);
    }
    this.provisioned ??= this.provisionAdminKey(dataSource.manager).catch((error: unknown) => {
      this.provisioned = undefined;
      throw new ContractError('UNAVAILABLE', `Could not provision the admin key: ${(error as Error).message}`);
    });
    await this.provisioned;
    return dataSource.manager;
  }

  /**
   * The local admin account and, when IOA_ADMIN_API_KEY is set, that key as one of its admin keys. Idempotent: every
   * replica and every restart runs it, and a key already present (even if revoked since) is left as it is. A new
   * value of IOA_ADMIN_API_KEY is a rotation: the key the variable held before is revoked.
   */
  private async provisionAdminKey(manager: Awaited<ReturnType<GatewayDatabase['dataSource']>>['manager']) {
    const now = new Date();
    await manager
      .createQueryBuilder()
      .insert()
      .into(AccountEntity)
      .values({ id: LOCAL_ADMIN_ACCOUNT_ID, name: 'Local administrator', createdAt: now })
      .orIgnore()
      .execute();
    const key = this.config.adminApiKey;
    if (!key) return;
    await manager
      .createQueryBuilder()
      .insert()
      .into(ApiKeyEntity)
      .values({
        id: randomUUID(),
        accountId: LOCAL_ADMIN_ACCOUNT_ID,
        name: ADMIN_KEY_NAME,
        role: 'admin',
        keyHash: hashApiKey(key),
        keyPrefix: apiKeyPrefixOf(key),
        createdAt: now,
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
      })
      .orIgnore()
      .execute();
    await manager
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ revokedAt: now })
      .where('account_id = :account AND name = :name AND key_hash <> :hash AND revoked_at IS NULL', {
        account: LOCAL_ADMIN_ACCOUNT_ID,
        name: ADMIN_KEY_NAME,
        hash: hashApiKey(key),
      })
      .execute();
  }
}
