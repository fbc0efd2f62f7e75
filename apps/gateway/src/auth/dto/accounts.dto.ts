import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { PRINCIPAL_ROLES, type PrincipalRole } from '@ioa/contracts';

/** Account ids are slugs: they travel in the `Ioa-Principal` header and are stored beside goals and agents. */
export const ACCOUNT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
const ACCOUNT_ID_RULE = 'id must be a lowercase slug (a-z, 0-9, "-"; at most 63 characters)';
/** Keys live at most about two years; a key that never expires is only the local admin's (provisioned at boot). */
export const MAX_KEY_LIFETIME_DAYS = 730;
export const DEFAULT_KEY_LIFETIME_DAYS = 90;

export class CreateAccountRequestDto {
  @ApiProperty({ description: 'The account id (a slug), used in URLs and as owner of its agents.', example: 'acme' })
  @IsString()
  @Matches(ACCOUNT_ID_PATTERN, { message: ACCOUNT_ID_RULE })
  id: string;

  @ApiProperty({ example: 'Acme Corp' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(/\S/, { message: 'name must not be blank' })
  name: string;
}

export class AccountIdParamsDto {
  @IsString()
  @Matches(ACCOUNT_ID_PATTERN, { message: ACCOUNT_ID_RULE })
  accountId: string;
}

export class ApiKeyParamsDto extends AccountIdParamsDto {
  @Matches(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, { message: 'keyId must be a UUID' })
  keyId: string;
}

export class CreateApiKeyRequestDto {
  @ApiProperty({ description: 'What the key is for, to tell keys apart.', example: 'ci pipeline' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(/\S/, { message: 'name must not be blank' })
  name: string;

  @ApiPropertyOptional({
    enum: PRINCIPAL_ROLES,
    default: 'member',
    description: 'Only an admin may create admin keys.',
  })
  @IsOptional()
  @IsIn(PRINCIPAL_ROLES)
  role?: PrincipalRole;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_KEY_LIFETIME_DAYS, default: DEFAULT_KEY_LIFETIME_DAYS })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_KEY_LIFETIME_DAYS)
  expiresInDays?: number;
}

export class AccountDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() createdAt: string;
}

export class AccountListDto {
  @ApiProperty({ type: [AccountDto] }) items: AccountDto[];
}

export class ApiKeyDto {
  @ApiProperty() id: string;
  @ApiProperty() accountId: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: PRINCIPAL_ROLES }) role: PrincipalRole;
  @ApiProperty({ description: 'The first characters of the key, to recognise it.' }) prefix: string;
  @ApiProperty() createdAt: string;
  @ApiProperty({ type: String, nullable: true }) expiresAt: string | null;
  @ApiProperty({ type: String, nullable: true }) revokedAt: string | null;
  @ApiProperty({ type: String, nullable: true }) lastUsedAt: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'The key itself. Shown this once: only its hash is stored.' })
  key: string;
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto] }) items: ApiKeyDto[];
}

export class PrincipalDto {
  @ApiProperty() accountId: string;
  @ApiProperty({ enum: PRINCIPAL_ROLES }) role: PrincipalRole;
  @ApiProperty({ enum: ['api-key', 'oidc'] }) via: 'api-key' | 'oidc';
}
