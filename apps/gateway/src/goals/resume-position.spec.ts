import 'reflect-metadata';
import { ContractError } from '@ioa/contracts';
import { resumePosition } from './resume-position.js';

describe('where a goal event stream resumes', () => {
  it('starts from the beginning without a header or `after`', () => {
    expect(resumePosition(undefined, undefined)).toBe(0);
    expect(resumePosition('', undefined)).toBe(0);
  });

  it('resumes after `?after=` when no header is sent', () => {
    expect(resumePosition(undefined, 7)).toBe(7);
  });

  it('prefers Last-Event-ID over `after`, as a reconnecting EventSource sends both', () => {
    expect(resumePosition('12', 7)).toBe(12);
    expect(resumePosition(' 3 ', undefined)).toBe(3);
  });

  it.each(['abc', '-1', '1.5', '1e3', '9999999999999999'])(
    'rejects Last-Event-ID %p with VALIDATION_FAILED',
    (value) => {
      const attempt = () => resumePosition(value, undefined);
      expect(attempt).toThrow(ContractError);
      expect(attempt).toThrow(/Last-Event-ID must be the id of an event of this stream/);
    },
  );
});
