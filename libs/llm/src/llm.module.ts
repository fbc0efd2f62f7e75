import { Logger, Module } from '@nestjs/common';
import { ConfigModule, type ConfigType } from '@nestjs/config';
import { LANGUAGE_MODEL, type LanguageModel } from './language-model.js';
import { llmConfig } from './llm.config.js';
import { OfflineLanguageModel } from './offline/offline-language-model.js';
import { OpenAiLanguageModel } from './openai-language-model.js';

export function createLanguageModel(config: ConfigType<typeof llmConfig>): LanguageModel {
  if (config.provider === 'offline') return new OfflineLanguageModel();
  return new OpenAiLanguageModel({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    model: config.model,
    invalidOutputRetries: config.invalidOutputRetries,
    transportRetries: config.transportRetries,
    timeoutMs: config.timeoutMs,
  });
}

/**
 * Provides `LANGUAGE_MODEL` (inject with `@Inject(LANGUAGE_MODEL) model: LanguageModel`), chosen by the `llm`
 * configuration. Import it in any module that needs decisions; it brings its own configuration namespace.
 */
@Module({
  imports: [ConfigModule.forFeature(llmConfig)],
  providers: [
    {
      provide: LANGUAGE_MODEL,
      inject: [llmConfig.KEY],
      useFactory: (config: ConfigType<typeof llmConfig>) => {
        const model = createLanguageModel(config);
        new Logger('LlmModule').log(`Language model: ${model.name}`);
        return model;
      },
    },
  ],
  exports: [LANGUAGE_MODEL],
})
export class LlmModule {}
