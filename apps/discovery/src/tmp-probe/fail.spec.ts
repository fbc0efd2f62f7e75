import { LocalHashEmbedder } from '../embedding/local-hash-embedder.js';
import { cardDocument } from '../indexing/card-document.js';
import { AgentCardGenerator } from '../../../../test/bench/discovery-cards.js';
it('fail', async () => {
  const e = new LocalHashEmbedder(384);
  const gen = new AgentCardGenerator(7);
  const agents = Array.from({ length: 5000 }, (_, i) => gen.agent(i));
  const vecs = agents.map((a) => e.embedOne(cardDocument(a.registration)));
  const out: string[] = [];
  for (const q of new AgentCardGenerator(99).queries(40)) {
    const qv = e.embedOne(q.query);
    let best = -2, bi = 0;
    vecs.forEach((v, i) => { let s = 0; for (let j = 0; j < 384; j++) s += v[j] * qv[j]; if (s > best) { best = s; bi = i; } });
    const ok = agents[bi].skillKeys.includes(q.skillKey);
    out.push(`${ok ? 'OK ' : 'BAD'} ${best.toFixed(2)} [${q.skillKey}] "${q.query}" -> ${agents[bi].registration.name} ${agents[bi].skillKeys.join(',')}`);
  }
  console.log(out.join('\n'));
}, 600000);
