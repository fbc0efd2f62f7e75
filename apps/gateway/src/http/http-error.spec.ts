import { BadRequestException, NotFoundException } from '@nestjs/common';
import { ContractError, ERROR_CODES, type ErrorCode } from '@ioa/contracts';
import { contractErrorToHttp, httpExceptionToHttp, httpStatusOf } from './http-error.js';

describe('mapping contract errors to HTTP', () => {
  const expected: Record<ErrorCode, number> = {
    MALFORMED_PAYLOAD: 400,
    VALIDATION_FAILED: 400,
    NOT_FOUND: 404,
    CONFLICT: 409,
    FORBIDDEN: 403,
    INVALID_STATE: 409,
    UNAVAILABLE: 503,
    TIMEOUT: 503,
    BUDGET_EXHAUSTED: 429,
    INTERNAL: 502,
    UNAUTHENTICATED: 401,
    QUOTA_EXCEEDED: 429,
  };

  it.each(ERROR_CODES.map((code) => [code, expected[code]] as const))('maps %s to %i', (code, status) => {
    expect(httpStatusOf(code)).toBe(status);
  });

  it('names the silent service and the timeout in a TIMEOUT message', () => {
    const error = new ContractError('TIMEOUT', 'No reply on ioa.registry.agent.list.v1 within 500 ms', {
      subject: 'ioa.registry.agent.list.v1',
      timeoutMs: 500,
    });
    expect(contractErrorToHttp(error)).toEqual({
      statusCode: 503,
      error: 'TIMEOUT',
      message: 'The registry service did not answer in time (500 ms); try again shortly',
      details: { subject: 'ioa.registry.agent.list.v1', timeoutMs: 500 },
    });
  });

  it('names the missing service in an UNAVAILABLE message', () => {
    const error = new ContractError('UNAVAILABLE', 'No service is answering ioa.discovery.agent.search.v1', {
      subject: 'ioa.discovery.agent.search.v1',
    });
    expect(contractErrorToHttp(error).message).toMatch(/^The discovery service is not available/);
  });

  it("keeps a service's own message and details for domain errors", () => {
    const body = contractErrorToHttp(ContractError.notFound('Agent', 'f0e1'));
    expect(body).toEqual({
      statusCode: 404,
      error: 'NOT_FOUND',
      message: 'Agent "f0e1" does not exist',
      details: { id: 'f0e1' },
    });
  });

  it("gives the router's and pipes' exceptions a platform error code", () => {
    expect(httpExceptionToHttp(new NotFoundException('Cannot GET /nope'))).toEqual({
      statusCode: 404,
      error: 'NOT_FOUND',
      message: 'Cannot GET /nope',
    });
    expect(httpExceptionToHttp(new BadRequestException(['a is wrong', 'b is wrong'])).message).toBe(
      'a is wrong; b is wrong',
    );
  });

  it('turns a body that is not JSON (a body-parser error Nest wrapped) into MALFORMED_PAYLOAD', () => {
    const parseError = Object.assign(new SyntaxError('Unexpected token n'), {
      status: 400,
      type: 'entity.parse.failed',
    });
    const wrapped = new BadRequestException(parseError.message, { cause: parseError });
    expect(httpExceptionToHttp(wrapped)).toEqual({
      statusCode: 400,
      error: 'MALFORMED_PAYLOAD',
      message: 'Unexpected token n',
    });
  });
});
