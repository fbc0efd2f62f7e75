import { describe, expect, it } from '@jest/globals';
import { goalHref, parseRoute } from './routes.js';

describe('the console’s routes', () => {
  it('reads each page from the address bar’s hash', () => {
    expect(parseRoute('#/agents')).toEqual({ page: 'agents' });
    expect(parseRoute('#/keys')).toEqual({ page: 'keys' });
    expect(parseRoute('#/operations')).toEqual({ page: 'operations' });
    expect(parseRoute('#/goals')).toEqual({ page: 'goals' });
    expect(parseRoute('#/goals/abc-1')).toEqual({ page: 'goal', goalId: 'abc-1' });
  });

  it('falls back to the goals page for an empty or unknown hash', () => {
    expect(parseRoute('')).toEqual({ page: 'goals' });
    expect(parseRoute('#/nothing-here')).toEqual({ page: 'goals' });
  });

  it('round-trips a goal id that needs escaping', () => {
    const id = 'a b/c';
    expect(parseRoute(goalHref(id))).toEqual({ page: 'goal', goalId: id });
  });
});
