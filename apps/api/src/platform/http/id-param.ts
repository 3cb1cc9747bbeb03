import { Param, PipeTransform } from '@nestjs/common';
import { ApiError, validationEntry } from '../errors/api-error';

class IdPipe implements PipeTransform<string, number> {
  constructor(private readonly name: string) {}

  transform(value: string): number {
    const n = Number(value);
    if (!/^\d{1,10}$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > 2147483647) {
      throw ApiError.validation([validationEntry('path', [this.name], `${this.name} must be a positive integer`, 'type_error.integer')]);
    }
    return n;
  }
}

/** An integer path id; anything else is 422 with loc ['path', name]. */
export const IdParam = (name: string) => Param(name, new IdPipe(name));
