import { LocalHashEmbedder } from '../embedding/local-hash-embedder.js';
import { cardDocument } from '../indexing/card-document.js';
import { AgentCardGenerator } from '../../../../test/bench/discovery-cards.js';

it('quality', async () => {
  const dim = Number(process.env.DIM ?? 384);
  const e = new LocalHashEmbedder(dim);
  const gen = new AgentCardGenerator(7);
  const N = Number(process.env.N ?? 10000);
  const agents = Array.from({ length: N }, (_, i) => gen.agent(i));
  const t0 = Date.now();
  const vecs = agents.map((a) => new Float32Array(e.embedOne(cardDocument(a.registration))));
  const embedMs = (Date.now() - t0) / N;
  const evalSet = (qs: { query: string; skillKey: string }[]) => {
    let hit1 = 0, p10 = 0;
    for (const q of qs) {
      const qv = e.embedOne(q.query);
      const scores = vecs.map((v, i) => { let s = 0; for (let j = 0; j < dim; j++) s += v[j] * qv[j]; return [s, i] as const; });
      scores.sort((a, b) => b[0] - a[0]);
      if (agents[scores[0][1]].skillKeys.includes(q.skillKey)) hit1++;
      p10 += scores.slice(0, 10).filter(([, i]) => agents[i].skillKeys.includes(q.skillKey)).length / 10;
    }
    return `top1=${(hit1 / qs.length).toFixed(3)} p@10=${(p10 / qs.length).toFixed(3)}`;
  };
  const held = new AgentCardGenerator(99).queries(1000);
  const ex = new AgentCardGenerator(98).exampleQueries(100);
  console.log(`dim=${dim} N=${N} embed=${embedMs.toFixed(3)}ms heldout: ${evalSet(held)} examples: ${evalSet(ex)}`);
  console.log(cardDocument(agents[0].registration));
}, 600000);
