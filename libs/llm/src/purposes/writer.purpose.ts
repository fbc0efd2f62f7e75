import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsText } from '@ioa/contracts';
import { definePurpose } from '../language-model.js';

/** writer.report: compose a report from a task's inputs. */
export class WriterReportInput {
  /** The report's subject (the task's abstract). */
  @IsText(300)
  title: string;

  /** What the report should cover (the task's description). */
  @IsText(8000)
  description: string;

  /**
   * The material: results of earlier tasks. By convention (the offline brief writes it so) each result is a
   * section starting with a `### <heading>` line; free text is accepted too.
   */
  @IsString()
  @MaxLength(40000)
  inputs: string;

  @IsOptional()
  @IsString()
  goal?: string;
}

export class WriterReportOutput {
  /** Markdown. */
  @IsText(20000)
  report: string;
}

export const WriterReportPurpose = definePurpose({
  purpose: 'writer.report',
  inputType: WriterReportInput,
  outputType: WriterReportOutput,
  instructions:
    'Compose a concise, well-structured Markdown report (headings, bullet points) from the inputs, covering every ' +
    'result. Do not invent facts that are not in the inputs.',
});
