import type { WriterReportInput, WriterReportOutput } from '../purposes/writer.purpose.js';
import { firstSentence, truncate } from './text.js';

interface Section {
  heading: string;
  body: string;
}

/** `### heading` sections of a text; the text before the first heading is not a section. */
function parseSections(text: string): Section[] {
  const parts = text.split(/^###\s+/m).slice(1);
  return parts
    .map((part) => {
      const newline = part.indexOf('\n');
      const heading = (newline >= 0 ? part.slice(0, newline) : part).trim();
      const body = newline >= 0 ? part.slice(newline + 1).trim() : '';
      return { heading, body };
    })
    .filter((section) => section.heading.length > 0);
}

const MAX_BULLETS = 12;

/** One bullet per paragraph (or per list item); hard-wrapped lines of a paragraph are joined. */
function bullets(body: string): string {
  if (body.includes('```')) return body; // code stays a block, as written
  const lines = body
    .split(/\n\s*\n|\n(?=\s*(?:[-*•]|\d+\.)\s)/)
    .map((paragraph) =>
      paragraph
        .replace(/\s*\n\s*/g, ' ')
        .trim()
        .replace(/^[-*•]\s+/, ''),
    )
    .filter((line) => line.length > 0);
  if (lines.length === 0) return '- (empty)';
  const shown = lines.slice(0, MAX_BULLETS).map((line) => `- ${truncate(line, 400)}`);
  if (lines.length > MAX_BULLETS) shown.push(`- … ${lines.length - MAX_BULLETS} more line(s)`);
  return shown.join('\n');
}

/**
 * `writer.report`: a Markdown report assembled from the inputs — a title ("Report: <goal's first sentence>" when the
 * goal is known, else the task's title), a summary listing the sources, then one heading per `### ` section of the
 * inputs (and of the description, de-duplicated by heading) with one bullet point per paragraph or list item (at
 * most 12; code blocks kept as they are). Inputs without sections become one "Inputs" section.
 */
export function writerReport(input: WriterReportInput): WriterReportOutput {
  const seen = new Set<string>();
  const sections = [...parseSections(input.inputs), ...parseSections(input.description)].filter((section) => {
    if (seen.has(section.heading)) return false;
    seen.add(section.heading);
    return true;
  });
  if (sections.length === 0 && input.inputs.trim().length > 0)
    sections.push({ heading: 'Inputs', body: input.inputs.trim() });
  const parts = [input.goal ? `# Report: ${firstSentence(input.goal, 200)}` : `# ${input.title}`];
  parts.push(
    '## Summary',
    sections.length > 0
      ? `- ${sections.length} result(s): ${sections.map((section) => section.heading).join('; ')}`
      : '- No results were provided.',
  );
  for (const section of sections) parts.push(`## ${section.heading}`, bullets(section.body));
  return { report: truncate(parts.join('\n\n'), 20000) };
}
