import type { ModelUsageV1 } from '@ioa/contracts';

/** What a model is asked to decide. Each purpose has its own input and output classes (see `purposes/`). */
export const MODEL_PURPOSES = [
  'team.queries',
  'team.pick',
  'turn.move',
  'conclusion',
  'task.brief',
  'task.delegate',
  'writer.report',
] as const;
export type ModelPurpose = (typeof MODEL_PURPOSES)[number];

export type OutputClass<T> = new () => T;

/** One structured model call: the model reads `instructions` and `input`, and answers with an `outputType`. */
export interface ModelCall<T extends object> {
  purpose: ModelPurpose;
  /** Structured input; rendered as JSON for a remote model, read field by field by the offline model. */
  input: object;
  instructions: string;
  /** The class the answer is validated against (class-validator), and its JSON Schema is derived from. */
  outputType: OutputClass<T>;
}

export interface ModelDecision<T> {
  /** A validated instance of the call's `outputType`. */
  output: T;
  /** Tokens and calls spent on this decision, retries included. */
  usage: ModelUsageV1;
}

/** The model layer every service uses. Implementations: `OpenAiLanguageModel`, `OfflineLanguageModel`. */
export interface LanguageModel {
  /** `openai:<model>` or `offline`, for logs and accounting. */
  readonly name: string;
  decide<T extends object>(call: ModelCall<T>): Promise<ModelDecision<T>>;
}

/** Injection token of the configured `LanguageModel`. */
export const LANGUAGE_MODEL = Symbol('LANGUAGE_MODEL');

/** A purpose: its name, the classes of its input and output, and the default instructions. */
export interface PurposeDefinition<I extends object, O extends object> {
  readonly purpose: ModelPurpose;
  readonly inputType: new () => I;
  readonly outputType: OutputClass<O>;
  readonly instructions: string;
}

export function definePurpose<I extends object, O extends object>(
  definition: PurposeDefinition<I, O>,
): PurposeDefinition<I, O> {
  return Object.freeze(definition);
}

/**
 * The typed way to build a call: `model.decide(callFor(TeamQueriesPurpose, {goal}))` gives a `TeamQueriesOutput`.
 * Extra instructions (a rejection reason to act on, for example) are appended to the purpose's own.
 */
export function callFor<I extends object, O extends object>(
  definition: PurposeDefinition<I, O>,
  input: I,
  extraInstructions?: string,
): ModelCall<O> {
  return {
    purpose: definition.purpose,
    input,
    instructions: extraInstructions ? `${definition.instructions}\n\n${extraInstructions}` : definition.instructions,
    outputType: definition.outputType,
  };
}

/**
 * The model did not produce a valid answer within its attempts (or the endpoint failed). Carries the usage spent
 * anyway, so budgets still count failed calls.
 */
export class ModelDecisionError extends Error {
  constructor(
    readonly purpose: ModelPurpose,
    message: string,
    readonly usage: ModelUsageV1,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ModelDecisionError';
  }
}
