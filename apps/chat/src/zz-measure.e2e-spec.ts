import { randomUUID } from 'node:crypto';
import { CreateGroupV1, ProposeMoveV1, type GroupV1 } from '@ioa/contracts';
import { newMember, startChat, type ChatHarness } from './testing/chat-test-kit.js';

function pct(values: number[], p: number) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

it('measure', async () => {
  const chat: ChatHarness = await startChat();
  async function runGroup(moves: number, latencies: number[]) {
    const members = [newMember('a'), newMember('b'), newMember('c'), newMember('d')];
    let group: GroupV1 = await chat.ok(CreateGroupV1, {
      goalId: randomUUID(), goal: 'bench', members, leaderId: members[0].agentId, maxTurns: 200, turnTimeoutSeconds: 600,
    });
    for (let i = 0; i < moves; i++) {
      const speaker = members.find((m) => m.agentId === group.currentSpeaker)!;
      const next = members[(members.indexOf(speaker) + 1) % 4];
      const t = performance.now();
      const r = await chat.ok(ProposeMoveV1, { groupId: group.id, speakerId: speaker.agentId, turn: group.turn, type: 'discussion', content: 'hello '.repeat(20), nextSpeaker: next.agentId });
      latencies.push(performance.now() - t);
      group = r.group;
    }
  }
  const seq: number[] = [];
  await runGroup(100, seq);
  console.log(`sequential: 100 moves, p50 ${pct(seq, 50).toFixed(1)} ms p99 ${pct(seq, 99).toFixed(1)} ms`);
  const par: number[] = [];
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 20 }, () => runGroup(25, par)));
  const secs = (performance.now() - t0) / 1000;
  console.log(`20 groups x 25 moves concurrently: ${(500 / secs).toFixed(0)} moves/s, p50 ${pct(par, 50).toFixed(1)} ms p99 ${pct(par, 99).toFixed(1)} ms`);
  await chat.stop();
});
