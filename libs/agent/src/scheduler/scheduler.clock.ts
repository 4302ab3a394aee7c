import { Injectable } from '@nestjs/common';

/** The scheduler's notion of now; tests replace `now` to move through due times without waiting. */
@Injectable()
export class SchedulerClock {
  now(): Date {
    return new Date();
  }
}
