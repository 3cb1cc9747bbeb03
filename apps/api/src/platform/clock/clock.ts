import { Injectable } from '@nestjs/common';

/** The application's time source: injected so tests can move time (cache expiry, webhook retries) without sleeping. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
