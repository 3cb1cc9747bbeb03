import { ApiProperty } from '@nestjs/swagger';
import { ApiError, validationEntry } from '../errors/api-error';
import { ValidateInt } from '../validation/decorators';

/** `page`/`per_page` for every list (spec: Shared conventions). Lists with other bounds extend it. */
export class PageQueryDto {
  @ValidateInt({ optional: true, query: true, min: 1, description: 'Page number, from 1' })
  page?: number;

  @ValidateInt({ optional: true, query: true, min: 1, max: 100, description: 'Items per page (default 25, max 100)' })
  per_page?: number;
}

export class PageMetaDto {
  @ApiProperty({ type: 'integer' }) page: number;
  @ApiProperty({ type: 'integer' }) per_page: number;
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: 'integer' }) total_pages: number;
}

export interface Page<T> {
  data: T[];
  meta: PageMetaDto;
}

export interface PageWindow {
  page: number;
  perPage: number;
  offset: number;
}

export function pageWindow(query: { page?: number; per_page?: number }, defaultPerPage = 25): PageWindow {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? defaultPerPage;
  return { page, perPage, offset: (page - 1) * perPage };
}

/**
 * Builds the list envelope and enforces the page bound (README, "The API in short": Lists): page 1 is
 * always valid (an empty list has total_pages 0), any page above max(total_pages, 1) is 422.
 */
export function toPage<T>(window: PageWindow, total: number, data: T[]): Page<T> {
  const totalPages = Math.ceil(total / window.perPage);
  if (window.page > Math.max(totalPages, 1)) {
    throw ApiError.validation([
      validationEntry(
        'query',
        ['page'],
        `page ${window.page} is beyond the last page (${Math.max(totalPages, 1)})`,
        'value_error.number.not_le',
      ),
    ]);
  }
  return { data, meta: { page: window.page, per_page: window.perPage, total, total_pages: totalPages } };
}

/** Runs count + page query, rejecting an out-of-range page before fetching rows. */
export async function paginate<T>(
  window: PageWindow,
  count: () => Promise<number>,
  fetch: (offset: number, limit: number) => Promise<T[]>,
): Promise<Page<T>> {
  const total = await count();
  toPage(window, total, []);
  const rows = total === 0 ? [] : await fetch(window.offset, window.perPage);
  return toPage(window, total, rows);
}
