import { SLUG_PATTERN, slugOf } from './slug.js';

describe('slugOf: free text as a name or skill id the contract accepts', () => {
  it.each([
    ['Weather Oracle', 'weather-oracle'],
    ['Résumé writer', 'resume-writer'],
    ['  --Trip planner!! ', 'trip-planner'],
    ['snake_case_tool', 'snake_case_tool'],
    ['C++ / Rust reviewer', 'c-rust-reviewer'],
  ])('%j → %j', (text, slug) => {
    expect(slugOf(text, 'fallback')).toBe(slug);
  });

  it('gives the fallback when nothing usable is left', () => {
    expect(slugOf('日本語', 'agent')).toBe('agent');
    expect(slugOf('---', 'skill-1')).toBe('skill-1');
  });

  it('cuts long text at 63 characters without a trailing separator, and every result matches SLUG_PATTERN', () => {
    const long = `${'a'.repeat(62)} b and more`;
    expect(slugOf(long, 'x')).toBe('a'.repeat(62));
    for (const text of ['Weather Oracle', 'Résumé writer', long, '_x_', 'Ünïcödé', `${'word '.repeat(30)}`]) {
      expect(slugOf(text, 'fallback')).toMatch(SLUG_PATTERN);
    }
  });
});
