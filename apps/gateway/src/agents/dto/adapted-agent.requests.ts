import { OmitType } from '@nestjs/swagger';
import { DeregisterAdaptedAgentV1Request, UpdateAdaptedAgentV1Request } from '@ioa/contracts';

/**
 * Bodies of `PATCH` / `DELETE /v1/agents/:id`: the contract's requests without the id, which is in the path. The
 * validation rules are the contract's own (mapped types carry its class-validator decorators).
 */
export class UpdateAgentRequestDto extends OmitType(UpdateAdaptedAgentV1Request, ['id'] as const) {}

export class DeregisterAgentRequestDto extends OmitType(DeregisterAdaptedAgentV1Request, ['id'] as const) {}
