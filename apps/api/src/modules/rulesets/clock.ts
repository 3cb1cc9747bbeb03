import { Injectable } from '@nestjs/common';

/** The time source of the module: injected so tests can move time (cache expiry) without sleeping. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
