import { Injectable } from '@nestjs/common';

export interface Reachability {
  reachable: boolean;
  lastError?: string;
  lastProbedAt?: Date;
}

/** What this replica last learned about each endpoint: from probes, and from task calls that could not connect. */
@Injectable()
export class ReachabilityBook {
  private readonly entries = new Map<string, Reachability>();

  get(agentId: string): Reachability {
    return this.entries.get(agentId) ?? { reachable: false, lastError: 'not probed yet' };
  }

  markReachable(agentId: string): void {
    this.entries.set(agentId, { reachable: true, lastProbedAt: new Date() });
  }

  markUnreachable(agentId: string, reason: string): void {
    this.entries.set(agentId, { reachable: false, lastError: reason, lastProbedAt: new Date() });
  }

  forget(agentId: string): void {
    this.entries.delete(agentId);
  }
}
