/**
 * Row provenance through the API: every transaction says where it was read (page and boxes of its
 * printed lines, in PDF points) and carries the named problems of its own cells, so a person can
 * find it on the page and see what is wrong with it.
 */
import { impossibleDatePage, makePdf } from '../../../packages/statements/src/__fixtures__/make-pdf';
import { TestApp } from './support/harness';

describe('transactions carry where they were read', () => {
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    app = await TestApp.start();
    key = (await app.newOrg('Provenance Org')).api_key;
  });
  afterAll(() => app?.close());

  it('page, boxes and row warnings on every row of the document and deal lists', async () => {
    // February 29 of a year without one on the second row: kept, and named on the row
    const page = impossibleDatePage();
    const deal = await app.request('POST', '/v1/deals', {
      key,
      body: { business_name: 'Plover Cafe LLC', funding_amount_requested: 5000 },
    });
    const fd = new FormData();
    fd.append('file', new Blob([await makePdf([page])], { type: 'application/pdf' }), 'plover.pdf');
    const up = await app.request('POST', `/v1/deals/${deal.body.id}/documents`, { key, form: fd });
    expect(up.status).toBe(201);
    await app.settle();

    const list = await app.request('GET', `/v1/documents/${up.body.id}/transactions`, { key });
    expect(list.status).toBe(200);
    const [first, second] = list.body.data;
    expect([first.amount, second.amount]).toEqual([-50, -20]);
    expect(first.row_warnings).toEqual([]);
    expect(second.row_warnings).toEqual([expect.stringMatching(/impossible date "29\/02\/2023"/)]);
    for (const t of [first, second]) {
      expect(t.source.page).toBe(1);
      expect(t.source.boxes).toHaveLength(1);
      const [x0, y0, x1, y1] = t.source.boxes[0];
      // the whole printed line, from the date column to the balance column, inside the page
      expect(x0).toBeCloseTo(40, 0);
      expect(x1).toBeGreaterThan(540);
      expect(0 < y0 && y0 < y1 && y1 < 792).toBe(true);
    }
    // rows lower on the page have boxes lower on the page (PDF points from the top)
    expect(first.source.boxes[0][3]).toBeLessThanOrEqual(second.source.boxes[0][1] + 1);
    const byDeal = await app.request('GET', `/v1/deals/${deal.body.id}/transactions`, { key });
    expect(byDeal.body.data.map((t: { source: unknown; row_warnings: string[] }) => [t.source, t.row_warnings])).toEqual(
      list.body.data.map((t: { source: unknown; row_warnings: string[] }) => [t.source, t.row_warnings]),
    );
  });
});
