import { describe, expect, it } from '@jest/globals';
import { chunkMarkdown } from './chunking.js';
import { HashingTextEmbedder } from './text-embedder.js';

describe('chunkMarkdown', () => {
  it('cuts a document into passages per section, with the heading path and the title', () => {
    const parsed = chunkMarkdown(
      '# Presence\n\nIntro text.\n\n## Heartbeats\n\nBeat often.\n\n### Details\n\nTTL.\n\n```\n# not a heading\n```',
      'presence',
    );
    expect(parsed.title).toBe('Presence');
    expect(parsed.chunks).toEqual([
      { ordinal: 0, heading: 'Presence', content: 'Intro text.' },
      { ordinal: 1, heading: 'Presence › Heartbeats', content: 'Beat often.' },
      { ordinal: 2, heading: 'Presence › Heartbeats › Details', content: 'TTL.\n\n```\n# not a heading\n```' },
    ]);
  });

  it('splits long sections at paragraph boundaries', () => {
    const paragraph = 'word '.repeat(50).trim(); // 249 characters: three fit in a passage, four do not
    const parsed = chunkMarkdown(`# T\n\n${[paragraph, paragraph, paragraph, paragraph].join('\n\n')}`, 't');
    expect(parsed.chunks.map((chunk) => chunk.content.split('\n\n').length)).toEqual([3, 1]);
    expect(parsed.chunks.every((chunk) => chunk.content.length <= 900)).toBe(true);
  });
});

describe('HashingTextEmbedder', () => {
  const embedder = new HashingTextEmbedder();
  const cosine = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index], 0);

  it('is deterministic and returns unit vectors', async () => {
    const [first] = await embedder.embed(['Agents heartbeat within the TTL']);
    const [second] = await new HashingTextEmbedder().embed(['Agents heartbeat within the TTL']);
    expect(second).toEqual(first);
    expect(Math.hypot(...first)).toBeCloseTo(1, 10);
    expect(first).toHaveLength(512);
  });

  it('scores texts sharing words (in other forms) above unrelated ones', () => {
    const question = embedder.embedOne('how do agents send heartbeats');
    const related = embedder.embedOne('An agent sends a heartbeat within the TTL, else it goes offline');
    const unrelated = embedder.embedOne('pgvector orders rows by cosine distance');
    expect(cosine(question, related)).toBeGreaterThan(cosine(question, unrelated) + 0.2);
  });
});
