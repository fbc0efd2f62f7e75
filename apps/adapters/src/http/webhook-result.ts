import type { ReportTaskV1Request, WebhookResultV1 } from '@ioa/contracts';

/** A webhook's answer (in a `200` or a callback) as the task report it becomes. */
export function reportOfWebhookResult(result: WebhookResultV1): Pick<ReportTaskV1Request, 'state' | 'content'> {
  switch (result.state ?? 'completed') {
    case 'completed':
      return { state: 'completed', content: result.result ?? '' };
    case 'working':
      return { state: 'working', content: result.reason };
    case 'failed':
      return { state: 'failed', content: result.reason || 'The webhook reported a failure without a reason' };
    case 'rejected':
      return { state: 'rejected', content: result.reason || 'The webhook rejected the task without a reason' };
  }
}
