import 'reflect-metadata';
import { ContractError, errorReply, okReply } from '@ioa/contracts';
import { encodeReply, replyErrorOf } from './reply-encoding.js';

const decode = (data: Uint8Array) => JSON.parse(new TextDecoder().decode(data)) as Record<string, unknown>;

describe('reply encoding', () => {
  it('sends a reply that fits as it is', () => {
    const encoded = encodeReply(okReply({ accepted: true }), 1024);
    expect(encoded.replaced).toBeUndefined();
    expect(decode(encoded.data)).toEqual({ ok: true, data: { accepted: true } });
  });

  it('drops the details of an error too large for max_payload, keeping its code', () => {
    const error = new ContractError('VALIDATION_FAILED', 'x'.repeat(5_000), ['y'.repeat(5_000)]).toBody();
    const encoded = encodeReply(errorReply(error), 1_000);
    expect(encoded.data.length).toBeLessThanOrEqual(1_000);
    expect(encoded.replaced).toMatch(/over the limit of 1000/);
    expect(decode(encoded.data)).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', retryable: false } });
  });

  it('turns a result too large, or not serialisable, into INTERNAL', () => {
    const large = encodeReply(okReply({ text: 'z'.repeat(10_000) }), 1_000);
    expect(large.data.length).toBeLessThanOrEqual(1_000);
    expect(decode(large.data)).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(decode(encodeReply(okReply(cyclic), 1_000).data)).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(decode(encodeReply(okReply({ big: 1n }), 1_000).data)).toMatchObject({ error: { code: 'INTERNAL' } });
  });

  it('keeps domain errors and masks everything else as INTERNAL', () => {
    expect(replyErrorOf(ContractError.notFound('Agent', 'a1'))).toEqual({
      body: { code: 'NOT_FOUND', message: 'Agent "a1" does not exist', details: { id: 'a1' }, retryable: false },
      internal: false,
    });
    expect(replyErrorOf(new Error('secret'))).toEqual({
      body: { code: 'INTERNAL', message: 'Internal error', retryable: true },
      internal: true,
    });
    expect(replyErrorOf('a string')).toMatchObject({ body: { code: 'INTERNAL' }, internal: true });
  });
});
