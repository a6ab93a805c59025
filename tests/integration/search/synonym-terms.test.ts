/**
 * Limits: a synonym group holds 2-20 terms. Terms are stored lowercased with spaces collapsed and repeats removed, so
 * the bound holds for the terms as stored: a request whose terms are fewer than two once normalised is refused.
 */
import { describe, expect, test } from '@jest/globals';
import { useStore } from '../../setup/store.js';

const store = useStore();
const { api } = store;

const groups = async () => (await api.GET('/v1/search/synonyms')).data!.data;

describe('createSynonymGroup', () => {
  test('two terms that differ only in case or spacing are one term: 400 invalid_request on terms, nothing stored', async () => {
    const before = await groups();
    for (const terms of [
      ['Sneaker', 'sneaker'],
      ['running  shoe', 'Running Shoe '],
    ]) {
      const { response, error } = await api.POST('/v1/search/synonyms', { body: { terms } });
      expect(response.status).toBe(400);
      expect(error).toMatchObject({ error: { code: 'invalid_request', field: 'terms' } });
    }
    expect(await groups()).toEqual(before);
  });

  test('two different terms are accepted (the lower bound itself)', async () => {
    const { response, data } = await api.POST('/v1/search/synonyms', {
      body: { terms: ['Sneaker', 'trainer', 'TRAINER'] },
    });
    expect(response.status).toBe(201);
    expect(data!.data.terms).toEqual(['sneaker', 'trainer']);
  });
});

describe('updateSynonymGroup', () => {
  test('replacing the terms with one term written twice is 400 invalid_request on terms; the group keeps its terms', async () => {
    const group = (await api.POST('/v1/search/synonyms', { body: { terms: ['hoodie', 'sweatshirt'] } })).data!.data;
    const { response, error } = await api.PATCH('/v1/search/synonyms/{id}', {
      params: { path: { id: group.id } },
      body: { terms: ['Parka', 'parka'] },
    });
    expect(response.status).toBe(400);
    expect(error).toMatchObject({ error: { code: 'invalid_request', field: 'terms' } });
    expect((await groups()).find((g) => g.id === group.id)!.terms).toEqual(['hoodie', 'sweatshirt']);
  });
});
