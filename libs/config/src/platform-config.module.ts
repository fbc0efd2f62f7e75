import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, type ConfigFactory } from '@nestjs/config';
import { validateEnvironment } from './environment.js';
import { databaseConfig, natsConfig } from './platform.config.js';

/**
 * Global configuration for one service: the platform namespaces (`nats`, `database`) plus the service's own
 * `registerAs` factories. Reads only the process environment (no .env files), as containers expect.
 */
@Module({})
export class PlatformConfigModule {
  static forService(serviceConfigs: ConfigFactory[] = []): DynamicModule {
    return {
      module: PlatformConfigModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          cache: false,
          load: [natsConfig, databaseConfig, ...serviceConfigs],
          validate: (config) => validateEnvironment(config),
        }),
      ],
    };
  }
}
