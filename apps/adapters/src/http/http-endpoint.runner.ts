import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { validatePayload } from '@ioa/messaging';
import { WEBHOOK_SIGNATURE_HEADER, WebhookResultV1, type WebhookDeliveryV1 } from '@ioa/contracts';
import { adaptersConfig, type AdaptersConfig } from '../adapters.config.js';
import type {
  EndpointProfile,
  EndpointRunner,
  EndpointTarget,
  TaskOutcome,
  TaskRun,
} from '../tasks/endpoint-runner.js';
import { describeError, ensureOk, EndpointCallError, fetchWithTimeout, withRetries } from '../tasks/outbound-call.js';
import { WebhookCallbackServer } from './webhook-callback.server.js';
import { WebhookTaskEntity } from './webhook-task.entity.js';
import { reportOfWebhookResult } from './webhook-result.js';
import { signBody } from './webhook-signature.js';

/**
 * `http` endpoints: IoA's adapter contract made plain. The task is POSTed (signed) to the webhook, which answers
 * `200 {result}` at once or `202` and calls back later. The delivery is retried on network errors and 5xx — safe,
 * because the task id identifies it — and the pending task is recorded before it goes out, so a callback that
 * arrives early (or on another replica) finds it.
 */
@Injectable()
export class HttpEndpointRunner implements EndpointRunner {
  readonly kind = 'http' as const;

  constructor(
    @Inject(adaptersConfig.KEY) private readonly config: AdaptersConfig,
    @InjectRepository(WebhookTaskEntity) private readonly pending: Repository<WebhookTaskEntity>,
    private readonly callbacks: WebhookCallbackServer,
  ) {}

  describe(): Promise<EndpointProfile> {
    return Promise.resolve({});
  }

  /** Any HTTP answer to a HEAD means the webhook's server is up; a refused connection or a timeout means down. */
  async probe(target: EndpointTarget): Promise<void> {
    const response = await fetchWithTimeout(target.url, { method: 'HEAD', timeoutMs: this.config.probeTimeoutMs });
    if (response.status >= 500) await ensureOk(response, `HEAD ${target.url}`);
  }

  async run(task: TaskRun): Promise<TaskOutcome> {
    const { target, assignment } = task;
    if (!target.secret) return { state: 'failed', content: 'This webhook agent has no signing secret' };
    const delivery: WebhookDeliveryV1 = {
      taskId: assignment.taskId,
      goalId: assignment.goalId,
      agentId: target.agentId,
      brief: assignment.brief,
      deadline: assignment.deadline,
      callbackUrl: this.callbacks.callbackUrl(target.agentId, assignment.taskId),
    };
    const body = JSON.stringify(delivery);
    await this.pending.upsert({ taskId: assignment.taskId, agentId: target.agentId, finishedAt: null }, ['taskId']);
    const timeoutMs = target.settings.timeoutMs ?? this.config.callTimeoutMs;
    const response = await withRetries(
      `Webhook POST ${target.url}`,
      { attempts: this.config.callAttempts, signal: task.signal },
      async () =>
        ensureOk(
          await fetchWithTimeout(target.url, {
            method: 'POST',
            body,
            timeoutMs,
            signal: task.signal,
            headers: {
              'content-type': 'application/json',
              [WEBHOOK_SIGNATURE_HEADER]: signBody(target.secret!, body),
              'idempotency-key': assignment.taskId,
            },
          }),
          `Webhook ${target.url}`,
        ),
    );
    if (response.status === 202) {
      await response.body?.cancel();
      return { state: 'pending' };
    }
    await this.pending.update({ taskId: assignment.taskId }, { finishedAt: new Date() });
    let answer: WebhookResultV1;
    try {
      answer = await validatePayload(WebhookResultV1, await response.json());
    } catch (error) {
      throw new EndpointCallError(`Webhook ${target.url} answered an invalid result: ${describeError(error)}`, false);
    }
    const report = reportOfWebhookResult(answer);
    // `working` is not an answer: a webhook that is not done answers 202 and calls back.
    if (report.state === 'working' || report.state === 'input-required') {
      return { state: 'failed', content: 'The webhook answered 200 with state "working"; answer 202 and call back' };
    }
    return { state: report.state, content: report.content ?? '' };
  }
}
