import { describe, expect, it } from '@jest/globals';
import { planToolCalls, type ToolDescription } from './tool-plan.js';

const tool = (name: string, description: string, properties: Record<string, unknown>): ToolDescription => ({
  name,
  description,
  inputSchema: { properties },
});

const TOOLS = [
  tool('add', 'Add two numbers and return the sum.', { a: { type: 'number' }, b: { type: 'number' } }),
  tool('capital_of', 'The capital city of a country.', { country: { type: 'string' } }),
  tool('shout', 'Repeat a text in capital letters.', { text: { type: 'string' }, loud: { type: 'boolean' } }),
];

describe('planToolCalls (the offline model’s tool use)', () => {
  it('calls the tools the brief names, in the order it names them, with numbers in order of appearance', () => {
    expect(planToolCalls('First capital_of Peru, then add 2 and 40.', TOOLS, 8)).toEqual([
      { name: 'capital_of', arguments: { country: 'First capital_of Peru, then add 2 and 40.' } },
      { name: 'add', arguments: { a: 2, b: 40 } },
    ]);
  });

  it('matches whole words only: "address" does not name `add`', () => {
    expect(planToolCalls('Find the address of the capital city of Italy', TOOLS, 8)).toEqual([
      { name: 'capital_of', arguments: { country: 'Find the address of the capital city of Italy' } },
    ]);
  });

  it('without a named tool, picks the one sharing most words with the brief; flags are set', () => {
    expect(planToolCalls('Repeat this text in capital letters', TOOLS, 8)).toEqual([
      { name: 'shout', arguments: { text: 'Repeat this text in capital letters', loud: true } },
    ]);
  });

  it('never exceeds the call limit and plans nothing without tools', () => {
    expect(planToolCalls('add, shout and capital_of', TOOLS, 2)).toHaveLength(2);
    expect(planToolCalls('add 1 and 2', [], 8)).toEqual([]);
  });

  it('leaves a numeric parameter out when the brief has no number for it', () => {
    expect(planToolCalls('add something', TOOLS, 8)).toEqual([{ name: 'add', arguments: {} }]);
  });
});
