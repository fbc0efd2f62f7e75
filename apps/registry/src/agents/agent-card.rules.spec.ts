import { ContractError, UpdateAgentV1Request } from '@ioa/contracts';
import { cardFieldsOf } from './agent-card.mapper.js';
import { applyUpdate, assertUniqueSkillIds, canonicalJson, isSameCard } from './agent-card.rules.js';
import { newAgentEntity } from '../testing/agent-entity.factory.js';

function update(fields: Partial<UpdateAgentV1Request>): UpdateAgentV1Request {
  return Object.assign(new UpdateAgentV1Request(), { id: newAgentEntity().id, owner: 'team-docs', ...fields });
}

describe('card rules', () => {
  describe('canonical JSON', () => {
    it('ignores key order at every depth, as jsonb does', () => {
      expect(canonicalJson({ b: 1, a: { y: [{ q: 1, p: 2 }], x: 2 } })).toBe(
        canonicalJson({ a: { x: 2, y: [{ p: 2, q: 1 }] }, b: 1 }),
      );
    });

    it('keeps array order and drops undefined members', () => {
      expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
      expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
    });
  });

  describe('is the same card', () => {
    const stored = cardFieldsOf(newAgentEntity({ metadata: { b: 1, a: 2 } }));

    it('treats a re-sent card with another key order as unchanged', () => {
      expect(isSameCard(stored, cardFieldsOf({ ...stored, metadata: { a: 2, b: 1 } }))).toBe(true);
    });

    it('treats an absent optional field and a stored null as the same', () => {
      expect(isSameCard(stored, cardFieldsOf({ ...stored, provider: undefined, documentationUrl: undefined }))).toBe(
        true,
      );
    });

    it('notices a changed description, skill tag or endpoint url', () => {
      expect(isSameCard(stored, { ...stored, description: 'Other.' })).toBe(false);
      expect(isSameCard(stored, { ...stored, skills: [{ ...stored.skills[0], tags: ['other'] }] })).toBe(false);
      expect(isSameCard(stored, { ...stored, endpoint: { kind: 'http', url: 'http://x' } })).toBe(false);
    });
  });

  describe('unique skill ids', () => {
    const skill = { id: 'a', name: 'A', description: 'a', tags: [], examples: [] };

    it('accepts distinct ids', () => {
      expect(() => assertUniqueSkillIds([skill, { ...skill, id: 'b' }])).not.toThrow();
    });

    it('rejects repeated ids with VALIDATION_FAILED naming them', () => {
      expect(() => assertUniqueSkillIds([skill, { ...skill, name: 'Again' }, { ...skill, id: 'b' }])).toThrow(
        'skill ids must be unique within an agent; repeated: a',
      );
      let thrown: unknown;
      try {
        assertUniqueSkillIds([skill, skill]);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ContractError);
      expect((thrown as ContractError).details).toEqual([expect.objectContaining({ property: 'skills' })]);
    });
  });

  describe('applying an update', () => {
    const current = cardFieldsOf(
      newAgentEntity({ provider: { organization: 'ACME' }, documentationUrl: 'https://acme.example' }),
    );

    it('keeps absent fields', () => {
      expect(applyUpdate(current, update({}))).toEqual(current);
    });

    it('replaces given fields', () => {
      expect(applyUpdate(current, update({ description: 'New.', version: '2.0.0' }))).toEqual({
        ...current,
        description: 'New.',
        version: '2.0.0',
      });
    });

    it('clears provider and documentation url with null', () => {
      const next = applyUpdate(current, update({ provider: null, documentationUrl: null }));
      expect(next).not.toHaveProperty('provider');
      expect(next).not.toHaveProperty('documentationUrl');
      expect(current.provider).toEqual({ organization: 'ACME' });
    });
  });
});
