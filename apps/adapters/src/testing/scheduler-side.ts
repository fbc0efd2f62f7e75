import { randomUUID } from 'node:crypto';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { ReportTaskV1, type ReportTaskV1Request, type TaskAssignmentV1Request } from '@ioa/contracts';

/** A task assignment as the scheduler sends it; `overrides` change any field. */
export function newTaskAssignment(
  agentId: string,
  description: string,
  overrides: Partial<TaskAssignmentV1Request> = {},
): TaskAssignmentV1Request {
  return {
    taskId: randomUUID(),
    goalId: randomUUID(),
    groupId: randomUUID(),
    agentId,
    brief: { abstract: description.slice(0, 80), inputs: '', description, completionCriteria: 'Answered.' },
    deadline: new Date(Date.now() + 60_000).toISOString(),
    depth: 0,
    maxDepth: 0,
    attempt: 1,
    ...overrides,
  };
}

/**
 * Plays the scheduler's report subject over raw NATS: records every `ReportTaskV1` and accepts it, or refuses it
 * (`INVALID_STATE`, as the scheduler does for a canceled task) when `refuse` says so.
 */
export function recordTaskReports(
  nats: NatsConnection,
  refuse: (report: ReportTaskV1Request) => boolean = () => false,
): ReportTaskV1Request[] {
  const reports: ReportTaskV1Request[] = [];
  nats.subscribe(ReportTaskV1.subject, {
    callback: (_error, message: Msg) => {
      const report = JSON.parse(new TextDecoder().decode(message.data)) as ReportTaskV1Request;
      reports.push(report);
      const reply = refuse(report)
        ? { ok: false, error: { code: 'INVALID_STATE', message: 'canceled', retryable: false } }
        : { ok: true, data: { id: report.taskId, state: report.state } };
      message.respond(JSON.stringify(reply));
    },
  });
  return reports;
}

/** The report that ended the task (not `working` nor `input-required`), if any yet. */
export function finalReportOf(reports: ReportTaskV1Request[], taskId: string): ReportTaskV1Request | undefined {
  return reports.find((report) => report.taskId === taskId && !['working', 'input-required'].includes(report.state));
}
