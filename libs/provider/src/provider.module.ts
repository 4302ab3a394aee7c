import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { SpendBudget } from './budget/spend-budget';
import { ProviderRegistry } from './provider.registry';
import { AttemptAdmission } from './reliability/attempt-admission';
import { CircuitBreakerRegistry } from './reliability/circuit-breaker.registry';
import { Clock } from './reliability/clock';
import { IdempotencyRepository } from './reliability/idempotency.repository';
import { IdempotencyStore, PgIdempotencyStore } from './reliability/idempotency.store';
import { RateLimitTracker } from './reliability/rate-limit.tracker';
import { ReliableProvider } from './reliable.provider';
import { ProviderStatusService } from './status/provider-status.service';
import { UsageRepository } from './usage/usage.repository';
import { UsageService } from './usage/usage.service';

@Module({
  imports: [ConfigModule, DbModule],
  providers: [
    Clock,
    ProviderRegistry,
    CircuitBreakerRegistry,
    RateLimitTracker,
    SpendBudget,
    AttemptAdmission,
    IdempotencyRepository,
    { provide: IdempotencyStore, useClass: PgIdempotencyStore },
    ReliableProvider,
    ProviderStatusService,
    UsageRepository,
    UsageService,
  ],
  exports: [Clock, ProviderRegistry, CircuitBreakerRegistry, ReliableProvider, ProviderStatusService, UsageService, SpendBudget],
})
export class ProviderModule {}
