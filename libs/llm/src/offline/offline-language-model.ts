import { ContractError } from '@ioa/contracts';
import { validatePayload } from '@ioa/messaging';
import {
  ModelDecisionError,
  type LanguageModel,
  type ModelCall,
  type ModelDecision,
  type ModelPurpose,
} from '../language-model.js';
import { ConclusionInput, TurnMoveInput } from '../purposes/turn.purpose.js';
import { TeamPickInput, TeamQueriesInput } from '../purposes/team.purpose.js';
import { TaskBriefInput, TaskDelegateInput } from '../purposes/task.purpose.js';
import { WriterReportInput } from '../purposes/writer.purpose.js';
import { estimateTokens } from '../usage.js';
import { teamPick, teamQueries } from './team.rules.js';
import { conclusion, turnMove } from './turn.rules.js';
import { taskBrief, taskDelegate } from './task.rules.js';
import { writerReport } from './writer.rules.js';

/**
 * # The offline model
 *
 * A deterministic `LanguageModel` the project owns, used whenever no LLM endpoint is configured (neither
 * `OPENAI_BASE_URL` nor `OPENAI_API_KEY`). It reads the structured input of each purpose and applies simple,
 * documented rules — no network, no randomness — so the demo and the tests run the real flow end to end.
 *
 * | purpose         | rule (see the function named in brackets for the details)                                      |
 * |-----------------|-------------------------------------------------------------------------------------------------|
 * | `team.queries`  | one query per clause of the goal; code becomes "JavaScript code" [teamQueries]                  |
 * | `team.pick`     | per query, the best candidate ≥ `minScore`, de-duplicated, ≤ `maxMembers`; reason = the skill  |
 * |                 | sharing most words with the query [teamPick]                                                    |
 * | `turn.move`     | leader: async tasks per clause for matching non-writers → pause on them → sync task to the     |
 * |                 | writer → conclude; others: acknowledge and hand back to the leader; `mustConclude` → conclude   |
 * |                 | [turnMove]                                                                                       |
 * | `conclusion`    | the writer's latest report, else a summary of every task's result [conclusion]                  |
 * | `task.brief`    | abstract = first sentence; inputs = earlier results; criteria by task type [taskBrief]          |
 * | `task.delegate` | only when the brief asks for a "sub-team" and depth < maxDepth [taskDelegate]                   |
 * | `writer.report` | headings per result section, lines as bullet points [writerReport]                              |
 *
 * Clauses are split at sentence ends, semicolons, line breaks, ", and", ", then", "and then", "and also" — never
 * inside code in backticks or fences. Matching is keyword overlap (stop words dropped, naive stemming, shared
 * stems of five letters or more); text carrying code also matches the keywords "code" and "javascript".
 *
 * **Tokens.** So that budgets behave as with a real model, usage is estimated as words / 0.75 tokens: the
 * instructions plus the input rendered as JSON for the prompt, the output rendered as JSON for the completion.
 * Each decision counts as one model call.
 */
export class OfflineLanguageModel implements LanguageModel {
  readonly name = 'offline';

  async decide<T extends object>(call: ModelCall<T>): Promise<ModelDecision<T>> {
    const produced = await this.apply(call.purpose, call.input);
    const usage = {
      promptTokens: estimateTokens(`${call.instructions}\n${JSON.stringify(call.input)}`),
      completionTokens: estimateTokens(JSON.stringify(produced)),
      modelCalls: 1,
    };
    try {
      // The rules' output goes through the same validation as a remote model's: a rule bug fails loudly here.
      const output = await validatePayload(call.outputType, produced);
      return { output, usage };
    } catch (error) {
      const reason = error instanceof ContractError ? error.message : String(error);
      throw new ModelDecisionError(
        call.purpose,
        `Offline rule for ${call.purpose} produced an invalid answer: ${reason}`,
        usage,
        1,
        {
          cause: error,
        },
      );
    }
  }

  private async apply(purpose: ModelPurpose, input: object): Promise<object> {
    switch (purpose) {
      case 'team.queries':
        return teamQueries(await validatePayload(TeamQueriesInput, input));
      case 'team.pick':
        return teamPick(await validatePayload(TeamPickInput, input));
      case 'turn.move':
        return turnMove(await validatePayload(TurnMoveInput, input));
      case 'conclusion':
        return conclusion(await validatePayload(ConclusionInput, input));
      case 'task.brief':
        return taskBrief(await validatePayload(TaskBriefInput, input));
      case 'task.delegate':
        return taskDelegate(await validatePayload(TaskDelegateInput, input));
      case 'writer.report':
        return writerReport(await validatePayload(WriterReportInput, input));
    }
  }
}
