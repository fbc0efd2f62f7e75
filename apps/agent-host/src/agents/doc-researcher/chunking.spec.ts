import { describe, expect, it } from '@jest/globals';
import { chunkMarkdown } from './chunking.js';

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
