/** A passage of a document, with the heading path it sits under. */
export interface DocumentChunk {
  ordinal: number;
  heading: string;
  content: string;
}

export interface ParsedDocument {
  title: string;
  chunks: DocumentChunk[];
}

const MAX_CHUNK_CHARS = 900;

/** Bumped when chunking changes, so documents are re-indexed (it is part of the content hash). */
export const CHUNKER_VERSION = 'markdown-sections-v1';

/**
 * Splits Markdown into passages: one per section (`#`/`##`/`###` heading), long sections cut at paragraph
 * boundaries into pieces of at most ~900 characters. The title is the first `#` heading (or the file name).
 */
export function chunkMarkdown(markdown: string, fallbackTitle: string): ParsedDocument {
  const lines = markdown.replace(/\r\n/g, '\n').split('\n');
  let title = fallbackTitle;
  const sections: Array<{ heading: string; body: string[] }> = [];
  let current: { heading: string; body: string[] } = { heading: '', body: [] };
  const path: string[] = [];
  let inFence = false;
  for (const line of lines) {
    if (line.startsWith('```')) inFence = !inFence;
    const match = inFence ? null : /^(#{1,3})\s+(.*)$/.exec(line);
    if (!match) {
      current.body.push(line);
      continue;
    }
    const level = match[1].length;
    const text = match[2].trim();
    if (level === 1 && title === fallbackTitle) title = text;
    sections.push(current);
    path.length = level - 1;
    path[level - 1] = text;
    current = { heading: path.filter(Boolean).join(' › '), body: [] };
  }
  sections.push(current);
  const chunks: DocumentChunk[] = [];
  for (const section of sections) {
    const paragraphs = section.body
      .join('\n')
      .split(/\n{2,}/)
      .map((paragraph) => paragraph.trim())
      .filter((paragraph) => paragraph.length > 0);
    let piece = '';
    const flush = () => {
      if (piece.length > 0) chunks.push({ ordinal: chunks.length, heading: section.heading || title, content: piece });
      piece = '';
    };
    for (const paragraph of paragraphs) {
      if (piece.length > 0 && piece.length + paragraph.length + 2 > MAX_CHUNK_CHARS) flush();
      piece = piece.length > 0 ? `${piece}\n\n${paragraph}` : paragraph;
    }
    flush();
  }
  return { title, chunks };
}
