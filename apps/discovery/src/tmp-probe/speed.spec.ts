import { LocalHashEmbedder, tokenize, stemWord, hashedFeatures } from '../embedding/local-hash-embedder.js';
import { cardDocument } from '../indexing/card-document.js';
import { AgentCardGenerator } from '../../../../test/bench/discovery-cards.js';
it('speed', () => {
  const gen = new AgentCardGenerator(7);
  const docs = Array.from({ length: 5000 }, (_, i) => cardDocument(gen.agent(i).registration));
  const e = new LocalHashEmbedder(384);
  for (let r = 0; r < 2; r++) {
  let t = performance.now(); let n = 0;
  for (const d of docs) n += tokenize(d).length;
  const tok = performance.now() - t; t = performance.now();
  for (const d of docs) for (const w of tokenize(d)) stemWord(w);
  const stem = performance.now() - t - tok; t = performance.now();
  for (const d of docs) hashedFeatures(d);
  const feat = performance.now() - t; t = performance.now();
  for (const d of docs) e.embedOne(d);
  const emb = performance.now() - t;
  console.log(`per doc: tokens=${(n/docs.length).toFixed(0)} tokenize=${(tok/docs.length).toFixed(3)} stem=${(stem/docs.length).toFixed(3)} features=${(feat/docs.length).toFixed(3)} embed=${(emb/docs.length).toFixed(3)} ms`);
  }
});
