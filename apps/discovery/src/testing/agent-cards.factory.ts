import { randomUUID } from 'node:crypto';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  AgentIndexedV1,
  type AgentCardV1,
  type AgentDescriptionV1,
  type AgentIndexedV1Event,
  type AgentSkillV1,
} from '@ioa/contracts';
import { expectEventually } from '@ioa/testing';

/** Test data for discovery: agent descriptions of clearly different trades, and cards built from them. */

type Description = Pick<AgentDescriptionV1, 'name' | 'description' | 'skills'>;

function skill(id: string, name: string, description: string, tags: string[], examples: string[]): AgentSkillV1 {
  return { id, name, description, tags, examples };
}

/** Eight agents whose skills barely overlap, so each has queries it must win. */
export const SAMPLE_AGENTS = {
  translator: {
    name: 'polyglot-translator',
    description: 'Translates documents and messages between English, German, French and Spanish.',
    skills: [
      skill(
        'translate-text',
        'Text translation',
        'Translate text or documents into another language, keeping tone.',
        ['translation', 'languages'],
        ['Translate this contract into German', 'What is "good morning" in French?'],
      ),
    ],
  },
  reviewer: {
    name: 'code-reviewer',
    description: 'Reviews source code and pull requests for bugs, security issues and style.',
    skills: [
      skill(
        'review-pull-request',
        'Pull request review',
        'Read a diff and point out bugs, risky changes and style problems.',
        ['code', 'review', 'typescript', 'python'],
        ['Review my pull request', 'Is there a bug in this Python function?'],
      ),
    ],
  },
  forecaster: {
    name: 'weather-forecaster',
    description: 'Weather forecasts: rain, wind, temperature and storms for any city.',
    skills: [
      skill(
        'forecast-weather',
        'Weather forecast',
        'Forecast rain, temperature and wind for a city over the next days.',
        ['weather', 'forecast'],
        ['Will it rain in Berlin tomorrow?', 'Weather forecast for Paris this weekend'],
      ),
    ],
  },
  accountant: {
    name: 'ledger-accountant',
    description: 'Bookkeeping: reconciles invoices with bank statements and prepares tax returns.',
    skills: [
      skill(
        'reconcile-invoices',
        'Invoice reconciliation',
        'Match invoices against bank statement lines and flag the missing payments.',
        ['finance', 'accounting'],
        ['Reconcile these invoices with my bank statement'],
      ),
      skill(
        'prepare-tax-return',
        'Tax return preparation',
        'Prepare a VAT or income tax return from the ledger.',
        ['finance', 'tax'],
        ['Prepare my quarterly VAT return'],
      ),
    ],
  },
  chef: {
    name: 'recipe-chef',
    description: 'Cooking assistant: recipes, meal plans and substitutions for ingredients.',
    skills: [
      skill(
        'suggest-recipe',
        'Recipe suggestion',
        'Suggest recipes from the ingredients in the fridge, with cooking steps.',
        ['cooking', 'recipes'],
        ['What can I cook with eggs, spinach and feta?'],
      ),
    ],
  },
  travel: {
    name: 'trip-planner',
    description: 'Plans trips: flights, hotels and day-by-day itineraries.',
    skills: [
      skill(
        'book-flight',
        'Flight booking',
        'Find and book flights between two airports on given dates.',
        ['travel', 'flights'],
        ['Book a flight from Lisbon to Oslo on May 3'],
      ),
      skill(
        'plan-itinerary',
        'Itinerary planning',
        'Plan a day-by-day travel itinerary with sights and hotels.',
        ['travel', 'hotels'],
        ['Plan three days in Rome'],
      ),
    ],
  },
  analyst: {
    name: 'sql-data-analyst',
    description: 'Analyses data: writes SQL queries, builds charts and explains trends in spreadsheets.',
    skills: [
      skill(
        'write-sql',
        'SQL query writing',
        'Write and optimise SQL queries against a PostgreSQL database.',
        ['data', 'sql', 'analytics'],
        ['Write a SQL query for monthly revenue per customer'],
      ),
      skill(
        'chart-data',
        'Charting',
        'Turn a spreadsheet into bar, line or pie charts.',
        ['data', 'charts'],
        ['Make a line chart of signups per week'],
      ),
    ],
  },
  recruiter: {
    name: 'talent-recruiter',
    description: 'Recruiting: screens resumes, writes job descriptions and schedules interviews with candidates.',
    skills: [
      skill(
        'screen-resumes',
        'Resume screening',
        'Rank candidate resumes against the requirements of a job opening.',
        ['hiring', 'recruiting'],
        ['Screen these resumes for the backend engineer job'],
      ),
    ],
  },
} satisfies Record<string, Description>;

export type SampleAgent = keyof typeof SAMPLE_AGENTS;

/** A stored card as the registry would publish it, with overrides. */
export function newAgentCard(overrides: Partial<AgentCardV1> = {}): AgentCardV1 {
  const now = new Date().toISOString();
  const base = SAMPLE_AGENTS.translator;
  return {
    id: randomUUID(),
    name: `${base.name}-${randomUUID().slice(0, 8)}`,
    description: base.description,
    skills: base.skills,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    owner: 'team-discovery-tests',
    endpoint: { kind: 'nats' },
    version: '1.0.0',
    metadata: {},
    status: 'online',
    revision: 1,
    registeredAt: now,
    updatedAt: now,
    lastSeenAt: now,
    ...overrides,
  };
}

/** A card of one of the sample agents (unique name and id per call). */
export function sampleCard(agent: SampleAgent, overrides: Partial<AgentCardV1> = {}): AgentCardV1 {
  const description = SAMPLE_AGENTS[agent];
  return newAgentCard({
    ...description,
    name: `${description.name}-${randomUUID().slice(0, 6)}`,
    ...overrides,
  });
}

/** Records `AgentIndexedV1` events on a raw NATS connection, so tests can wait for discovery to catch up. */
export async function watchIndexed(connection: NatsConnection): Promise<{
  events: AgentIndexedV1Event[];
  waitFor(agentId: string, revision: number, indexed?: boolean): Promise<AgentIndexedV1Event>;
  stop(): void;
}> {
  const events: AgentIndexedV1Event[] = [];
  const subscription: Subscription = connection.subscribe(AgentIndexedV1.subject, {
    callback: (error, message) => {
      if (!error) events.push(JSON.parse(new TextDecoder().decode(message.data)) as AgentIndexedV1Event);
    },
  });
  await connection.flush();
  return {
    events,
    waitFor: (agentId, revision, indexed = true) =>
      expectEventually<AgentIndexedV1Event | undefined>(
        () =>
          events.find((event) => event.agentId === agentId && event.revision === revision && event.indexed === indexed),
        { message: `discovery did not announce ${agentId}@${revision} (indexed=${indexed})` },
      ) as Promise<AgentIndexedV1Event>,
    stop: () => subscription.unsubscribe(),
  };
}
