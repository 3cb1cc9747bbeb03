import { Ledgerlens } from './index.js';
import type { ApiResponse, Deal, DealList, DealSummary, PaginatedPaths, paths, RequestBodyOf, OperationOf, SuccessBody } from './index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_value?: T): void {}

/**
 * Compile-time checks of the typed-by-path helpers (run by `tsc -p packages/sdk/tsconfig.spec.json`);
 * at run time the calls are never made.
 */
describe('typed paths', () => {
  it('derives params, bodies and results from the schema', () => {
    assertType<Equal<SuccessBody<OperationOf<paths, '/v1/deals/{deal_id}', 'get'>>, Deal>>();
    assertType<Equal<SuccessBody<OperationOf<paths, '/v1/deals', 'get'>>, DealList>>();
    assertType<Equal<RequestBodyOf<OperationOf<paths, '/v1/deals/{deal_id}', 'get'>>, never>>();
    // Lists are paginated paths; a single-resource path is not.
    assertType<Equal<Extract<PaginatedPaths<paths>, '/v1/deals' | '/v1/keys' | '/v1/deals/{deal_id}'>, '/v1/deals' | '/v1/keys'>>();

    const client = new Ledgerlens({ baseUrl: 'http://127.0.0.1:1' });
    const typed = async () => {
      const got: ApiResponse<Deal> = await client.GET('/v1/deals/{deal_id}', { params: { path: { deal_id: 1 } } });
      const listed: DealSummary[] = (await client.GET('/v1/deals')).data.data;
      await client.GET('/v1/deals', { params: { query: { status: 'ready', per_page: 10 } } });
      await client.POST('/v1/deals', { body: { business_name: 'x', funding_amount_requested: 1 }, headers: { 'Idempotency-Key': 'k' } });
      // @ts-expect-error the path parameter is required
      await client.GET('/v1/deals/{deal_id}');
      // @ts-expect-error deal_id must be a number
      await client.GET('/v1/deals/{deal_id}', { params: { path: { deal_id: 'x' } } });
      // @ts-expect-error unknown path
      await client.GET('/v1/nope');
      // @ts-expect-error no GET on this path
      await client.GET('/v1/deals/batch');
      // @ts-expect-error POST /v1/deals needs a body
      await client.POST('/v1/deals', {});
      // @ts-expect-error funding_amount_requested is required
      await client.POST('/v1/deals', { body: { business_name: 'x' } });
      // @ts-expect-error unknown status value
      await client.deals.list({ status: 'closed' });
      // @ts-expect-error not a decision
      await client.deals.decide(1, 'maybe');
      return [got, listed];
    };
    expect(typeof typed).toBe('function');
  });
});
