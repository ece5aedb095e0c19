/**
 * Relevance measured on the labelled set (test/fixtures/search): 70+ English and Chinese queries over a
 * generated library of 500 distractors plus the labelled skills. No timing is asserted here; the bench
 * (`npm run bench -- search`) reports latency and the same figures at 10k.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { openLibrary } from "../../src/skills/library.js";
import { SkillSearchIndex } from "../../src/skills/search.js";
import { labelledQueries, measureRelevance, writeLabelledHome } from "../fixtures/search/labelled.js";
import { tempHome } from "./helpers.js";

let env: ReturnType<typeof tempHome>;

beforeAll(() => {
  env = tempHome("skillgate-relevance-");
  writeLabelledHome(env.home, 500);
});
afterAll(() => env.cleanup());

it("finds the labelled skill in the first three hits for at least 90% of the queries", async () => {
  expect(labelledQueries.length).toBeGreaterThanOrEqual(60);
  const library = openLibrary(env.home, loadConfig(`${env.home}/config.yaml`), { watch: false });
  const index = new SkillSearchIndex(library);
  const { recallAt3, mrr, misses } = await measureRelevance((query) => index.search(query, { limit: 10 }));
  library.close?.();
  expect(misses.length <= labelledQueries.length * 0.1 ? [] : misses).toEqual([]);
  expect(recallAt3).toBeGreaterThanOrEqual(0.9);
  expect(mrr).toBeGreaterThan(0.8);
}, 120_000);

it("a process's first search, which scans the stored documents, ranks exactly as the postings do", async () => {
  const config = loadConfig(`${env.home}/config.yaml`);
  const warmLibrary = openLibrary(env.home, config, { watch: false });
  const warm = new SkillSearchIndex(warmLibrary);
  await warm.search("warm up");
  for (const { query } of labelledQueries) {
    // Each fresh index starts from the persistent one and answers its one search without postings.
    const library = openLibrary(env.home, config, { watch: false });
    const fresh = await new SkillSearchIndex(library).search(query, { limit: 10 });
    library.close?.();
    expect({ query, hits: fresh }).toEqual({ query, hits: await warm.search(query, { limit: 10 }) });
  }
  warmLibrary.close?.();
}, 120_000);
