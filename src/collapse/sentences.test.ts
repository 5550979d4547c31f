import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/backends/memory-store.js';
import { stashId } from '../text/content-hash.js';
import { listingCutMark } from '../text/index.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { cutProseLine, sentenceSpans } from './sentences.js';
import { collapseText } from './text.js';

const o200k = getTokenizer('o200k');

// A fetched page as plain text: GitHub's "Rate limits for the REST API"
// (https://docs.github.com/en/enterprise-cloud@latest/rest/using-the-rest-api/rate-limits-for-the-rest-api),
// its paragraphs as a web fetch tool returns them, written down from the page's text.
const PARAGRAPHS = [
  'Rate limits for the REST API. Learn about REST API rate limits, how to avoid exceeding them, and what to do if you do exceed them.',
  'About primary rate limits. GitHub limits the number of REST API requests that you can make within a specific amount of time. This limit helps prevent abuse and denial-of-service attacks, and ensures that the API remains available for all users. Some endpoints, like the search endpoints, have more restrictive limits. For more information about these endpoints, see REST API endpoints for rate limits. The GraphQL API also has a separate primary rate limit. See Rate limits and node limits for the GraphQL API. In general, you can calculate your primary rate limit for the REST API based on your method of authentication, as described below.',
  'Primary rate limit for unauthenticated users. You can make unauthenticated requests if you are only fetching public data. Unauthenticated requests are associated with the originating IP address, not with the user or application that made the request. The primary rate limit for unauthenticated requests is 60 requests per hour.',
  'Primary rate limit for authenticated users. You can use a personal access token to make API requests. Additionally, you can authorize a GitHub App or OAuth app, which can then make API requests on your behalf. All of these requests count towards your personal rate limit of 5,000 requests per hour. Requests made on your behalf by a GitHub App that is owned by a GitHub Enterprise Cloud organization have a higher rate limit of 15,000 requests per hour.',
  'Primary rate limit for GitHub App installations. GitHub Apps authenticating with an installation access token use the installation’s minimum rate limit of 5,000 requests per hour. If the installation is on a GitHub Enterprise Cloud organization, the installation has a rate limit of 15,000 requests per hour. For installations that are not on a GitHub Enterprise Cloud organization, the rate limit for the installation will scale with the number of users and repositories.',
  'About secondary rate limits. In addition to primary rate limits, GitHub enforces secondary rate limits in order to prevent abuse and keep the API available for all users. You may encounter a secondary rate limit if you make too many concurrent requests. No more than 100 concurrent requests are allowed. This limit is shared across the REST API and GraphQL API. You should not make too many requests per minute to a single endpoint.',
  'Checking the status of your rate limit. You can use the headers that are sent with each response to determine the current status of your primary rate limit. The x-ratelimit-remaining header gives the number of requests remaining in the current rate limit window, and x-ratelimit-reset gives the time at which the current rate limit window resets in UTC epoch seconds.',
  'Exceeding the primary rate limit. If you exceed your primary rate limit, you will receive a 403 or 429 response, and the x-ratelimit-remaining header will be 0. You should not retry your request until after the time specified by the x-ratelimit-reset header.',
];
const PAGE = PARAGRAPHS.join(' ');
const KEY = 'The primary rate limit for unauthenticated requests is 60 requests per hour.';

/** The characters the marks in `cut` say were left out. */
const omittedBy = (cut: string) =>
  [...cut.matchAll(/\((\d+) characters (?:of this line )?omitted|\(\+(\d+) chars\)/g)].reduce(
    (n, m) => n + Number(m[1] ?? m[2]),
    0,
  );

describe('an over-long line of prose cut by its sentences', () => {
  it('splits at sentence ends, not inside abbreviations of numbers', () => {
    const s = sentenceSpans('It is 5,000 requests. Then 60 more! Done?');
    expect(s.map(([start, end]) => end - start)).toEqual([22, 14, 5]);
  });

  it('keeps the sentence naming what the call asked for, counting every cut', () => {
    const cut = cutProseLine(PAGE, 400, ['unauthenticated', 'rate', 'limit'], listingCutMark) as string;
    expect(cut).toContain(KEY);
    expect(cut.length).toBeLessThanOrEqual(400 + listingCutMark(PAGE.length).length);
    // Its first sentence says what the page is.
    expect(cut.startsWith('Rate limits for the REST API.')).toBe(true);
    const kept = cut.replace(/ …\(\+\d+ chars\)/g, '');
    expect(kept.length + omittedBy(cut)).toBe(PAGE.length);
  });

  it('keeps a sentence that reports an error where the call named nothing in it', () => {
    const line = `${PARAGRAPHS.slice(0, 4).join(' ')} Error: request failed with status 429 Too Many Requests. ${PARAGRAPHS.slice(4).join(' ')}`;
    expect(cutProseLine(line, 300, [], listingCutMark)).toContain('Error: request failed with status 429');
  });

  it('leaves a line with no sentence that matters to the plain cut', () => {
    expect(cutProseLine(PAGE, 400, ['kubernetes'], listingCutMark)).toBeUndefined();
    expect(cutProseLine('x'.repeat(2000), 400, ['x'], listingCutMark)).toBeUndefined();
  });
});

describe('a web result collapsed', () => {
  const collapse = async (text: string, query: string[], budget: number) => {
    const store = new MemoryStore();
    const id = stashId(text);
    const out = await collapseText(
      text,
      { budget, query },
      {
        tokenizer: o200k,
        id: () => id,
        stash: async () => store.putIfAbsent({ dir: 'pruned', name: id }, Buffer.from(text)),
      },
    );
    const stashed = await store.get({ dir: 'pruned', name: id });
    return { out, id, stashed: stashed?.toString() };
  };

  it('keeps the sentence asked about from a page on one line (a character window kept only its ends)', async () => {
    const { out, id, stashed } = await collapse(PAGE, ['unauthenticated', 'rate', 'limit'], 200);
    if (out.action !== 'acted') throw new Error('not collapsed');
    expect(out.text).toContain(KEY);
    expect(o200k.count(out.text)).toBeLessThanOrEqual(200);
    // Every cut names the recall id and counts what it left out; the original is stashed whole.
    expect(out.text).toContain(`<<sw:${id}>>`);
    const kept = out.text.replace(/\n\.\.\. \(\d+ characters omitted; [^\n]*\) \.\.\.\n/g, '');
    expect(kept.length + omittedBy(out.text)).toBe(PAGE.length);
    expect(stashed).toBe(PAGE);
  });

  it('keeps it from a paragraph of a page of many lines', async () => {
    const page = [
      'Rate limits for the REST API - GitHub Enterprise Cloud Docs',
      PARAGRAPHS.slice(0, 4).join(' '),
      PARAGRAPHS.slice(4).join(' '),
      'Help and support. Did you find what you needed?',
    ].join('\n');
    const { out } = await collapse(page, ['unauthenticated', 'rate', 'limit'], 250);
    if (out.action !== 'acted') throw new Error('not collapsed');
    expect(out.text).toContain(KEY);
    expect(o200k.count(out.text)).toBeLessThanOrEqual(250);
  });
});
