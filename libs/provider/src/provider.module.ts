import { Module } from '@nestjs/common';
import { ProviderRegistry } from './provider.registry';
import { ReliableProvider } from './reliable.provider';

@Module({
  providers: [ProviderRegistry, ReliableProvider],
  exports: [ProviderRegistry, ReliableProvider],
})
export class ProviderModule {}
