import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Req } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { HttpErrorDto } from '../http/http-error.dto.js';
import { AdminOnly } from './access.decorators.js';
import { AccountsService } from './accounts.service.js';
import {
  AccountDto,
  AccountIdParamsDto,
  AccountListDto,
  ApiKeyDto,
  ApiKeyListDto,
  ApiKeyParamsDto,
  CreateAccountRequestDto,
  CreateApiKeyRequestDto,
  CreatedApiKeyDto,
  PrincipalDto,
} from './dto/accounts.dto.js';
import type { AuthenticatedPrincipal, AuthenticatedRequest } from './principal.js';

function callerOf(request: AuthenticatedRequest): AuthenticatedPrincipal {
  // The global guard has run: every non-public route has a principal.
  return request.principal!;
}

@ApiTags('accounts')
@ApiUnauthorizedResponse({ type: HttpErrorDto, description: 'No credentials, or unknown, expired or revoked ones.' })
@Controller({ version: '1' })
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Get('me')
  @ApiOperation({ summary: 'Who the credentials of this request belong to' })
  @ApiOkResponse({ type: PrincipalDto })
  me(@Req() request: AuthenticatedRequest): PrincipalDto {
    const { accountId, role, via } = callerOf(request);
    return { accountId, role, via };
  }

  @Post('accounts')
  @AdminOnly()
  @ApiOperation({ summary: 'Create an account (admin)' })
  @ApiCreatedResponse({ type: AccountDto })
  @ApiForbiddenResponse({ type: HttpErrorDto, description: 'The caller is not an admin.' })
  createAccount(@Body() body: CreateAccountRequestDto): Promise<AccountDto> {
    return this.accounts.createAccount(body);
  }

  @Get('accounts')
  @AdminOnly()
  @ApiOperation({ summary: 'List accounts (admin)' })
  @ApiOkResponse({ type: AccountListDto })
  @ApiForbiddenResponse({ type: HttpErrorDto, description: 'The caller is not an admin.' })
  async listAccounts(): Promise<AccountListDto> {
    return { items: await this.accounts.listAccounts() };
  }

  @Post('accounts/:accountId/api-keys')
  @ApiOperation({
    summary: "Create an API key for an account (its own members, or an admin); the key's text is shown this once",
  })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No such account (or not the caller’s).' })
  createKey(
    @Param() params: AccountIdParamsDto,
    @Body() body: CreateApiKeyRequestDto,
    @Req() request: AuthenticatedRequest,
  ): Promise<CreatedApiKeyDto> {
    return this.accounts.createKey(params.accountId, body, callerOf(request));
  }

  @Get('accounts/:accountId/api-keys')
  @ApiOperation({ summary: "An account's API keys (never their text)" })
  @ApiOkResponse({ type: ApiKeyListDto })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No such account (or not the caller’s).' })
  async listKeys(@Param() params: AccountIdParamsDto, @Req() request: AuthenticatedRequest): Promise<ApiKeyListDto> {
    return { items: await this.accounts.listKeys(params.accountId, callerOf(request)) };
  }

  @Delete('accounts/:accountId/api-keys/:keyId')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Revoke an API key; requests with it are refused from now on' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No such key in this account.' })
  revokeKey(@Param() params: ApiKeyParamsDto, @Req() request: AuthenticatedRequest): Promise<ApiKeyDto> {
    return this.accounts.revokeKey(params.accountId, params.keyId, callerOf(request));
  }
}
