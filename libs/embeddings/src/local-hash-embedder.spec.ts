import { cosineSimilarity } from './embedder.js';
import { LocalHashEmbedder, stemWord, tokenize } from './local-hash-embedder.js';

describe('LocalHashEmbedder', () => {
  const embedder = new LocalHashEmbedder();
  const embed = (text: string) => embedder.embedOne(text);

  it('is deterministic: the same text always gives the same vector, across instances', async () => {
    const text = 'Translates legal contracts from German into English';
    const [first] = await embedder.embed([text]);
    const [second] = await new LocalHashEmbedder().embed([text]);
    expect(second).toEqual(first);
    expect(first).toHaveLength(384);
  });

  it('returns unit vectors of the configured dimension', () => {
    for (const dimension of [64, 384, 1024]) {
      const vector = new LocalHashEmbedder(dimension).embedOne('Summarise long meeting transcripts into action items');
      expect(vector).toHaveLength(dimension);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 10);
    }
  });

  it('scores a paraphrase of a text higher than unrelated text', () => {
    const card = embed(
      'pdf-translator. Translates documents between languages. Document translation. Translate PDF and Word files ' +
        'from English to French, German or Spanish, keeping the layout. translation, pdf, languages.',
    );
    const related = cosineSimilarity(card, embed('translate my pdf document into french'));
    const unrelated = cosineSimilarity(card, embed('forecast tomorrow’s weather in Paris'));
    expect(related).toBeGreaterThan(0.2);
    expect(related).toBeGreaterThan(unrelated + 0.15);
  });

  it('ranks the matching card first among several', () => {
    const cards = {
      translator: 'Translator. Translates text between English, French and German. translation, languages.',
      coder: 'Code reviewer. Reviews pull requests for bugs and style in TypeScript and Python. code, review.',
      weather: 'Weather forecaster. Forecasts rain, wind and temperature for any city. weather, forecast.',
      accountant: 'Bookkeeper. Reconciles invoices and bank statements, prepares tax returns. accounting, tax.',
    };
    const rank = (query: string) =>
      Object.entries(cards)
        .map(([name, text]) => ({ name, score: cosineSimilarity(embed(text), embed(query)) }))
        .sort((a, b) => b.score - a.score)[0].name;
    expect(rank('review my python pull request')).toBe('coder');
    expect(rank('will it rain in Berlin tomorrow?')).toBe('weather');
    expect(rank('reconcile these invoices with the bank statement')).toBe('accountant');
    expect(rank('translating a letter into German')).toBe('translator');
  });

  it('gives a zero vector for text without informative words', () => {
    expect(embed('please help me with this').every((value) => value === 0)).toBe(true);
  });

  it('folds word forms onto one stem and ignores case and accents', () => {
    expect(new Set(['translations', 'translated', 'translator', 'translate'].map(stemWord))).toEqual(
      new Set(['translat']),
    );
    expect(new Set(['scheduling', 'scheduler', 'schedules', 'scheduled'].map(stemWord))).toEqual(new Set(['schedul']));
    expect(stemWord('queries')).toBe(stemWord('query'));
    expect(tokenize('Résumé PARSING')).toEqual(['resume', 'parsing']);
    expect(cosineSimilarity(embed('Résumé parsing'), embed('resume parsing'))).toBeCloseTo(1, 10);
  });
});
