import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  DeregisterAdaptedAgentV1,
  DeregisterAdaptedAgentV1Request,
  GetAdaptedAgentV1,
  GetAdaptedAgentV1Request,
  RegisterAdaptedAgentV1,
  RegisterAdaptedAgentV1Request,
  UpdateAdaptedAgentV1,
  UpdateAdaptedAgentV1Request,
  type AdaptedAgentV1,
  type DeregisterAdaptedAgentV1Response,
} from '@ioa/contracts';
import { HandleRequest } from '@ioa/messaging';
import { AdaptedAgentsService } from './adapted-agents.service.js';

/** The adapters service's request subjects (payloads arrive validated against their contract class). */
@Controller()
export class AdaptedAgentsController {
  constructor(private readonly agents: AdaptedAgentsService) {}

  @HandleRequest(RegisterAdaptedAgentV1)
  onRegister(@Payload() request: RegisterAdaptedAgentV1Request): Promise<AdaptedAgentV1> {
    return this.agents.register(request);
  }

  @HandleRequest(UpdateAdaptedAgentV1)
  onUpdate(@Payload() request: UpdateAdaptedAgentV1Request): Promise<AdaptedAgentV1> {
    return this.agents.update(request);
  }

  @HandleRequest(DeregisterAdaptedAgentV1)
  onDeregister(@Payload() request: DeregisterAdaptedAgentV1Request): Promise<DeregisterAdaptedAgentV1Response> {
    return this.agents.deregister(request);
  }

  @HandleRequest(GetAdaptedAgentV1)
  onGet(@Payload() request: GetAdaptedAgentV1Request): Promise<AdaptedAgentV1> {
    return this.agents.get(request);
  }
}
