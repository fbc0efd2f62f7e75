import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  DeregisterAgentV1,
  DeregisterAgentV1Request,
  GetAgentV1,
  GetAgentV1Request,
  HeartbeatAgentV1,
  HeartbeatAgentV1Request,
  ListAgentsV1,
  ListAgentsV1Request,
  RegisterAgentV1,
  RegisterAgentV1Request,
  UpdateAgentV1,
  UpdateAgentV1Request,
  type AgentCardV1,
  type DeregisterAgentV1Response,
  type HeartbeatAgentV1Response,
  type ListAgentsV1Response,
  type RegisterAgentV1Response,
} from '@ioa/contracts';
import { HandleRequest } from '@ioa/messaging';
import { AgentsService } from './agents.service.js';

/**
 * The registry's request subjects. Payloads arrive validated against their contract class (the request classes are
 * value imports on purpose: the validation pipe reads them from the parameter's design type).
 */
@Controller()
export class AgentsController {
  constructor(private readonly agents: AgentsService) {}

  @HandleRequest(RegisterAgentV1)
  onRegister(@Payload() request: RegisterAgentV1Request): Promise<RegisterAgentV1Response> {
    return this.agents.register(request);
  }

  @HandleRequest(UpdateAgentV1)
  onUpdate(@Payload() request: UpdateAgentV1Request): Promise<AgentCardV1> {
    return this.agents.update(request);
  }

  @HandleRequest(DeregisterAgentV1)
  onDeregister(@Payload() request: DeregisterAgentV1Request): Promise<DeregisterAgentV1Response> {
    return this.agents.deregister(request);
  }

  @HandleRequest(GetAgentV1)
  onGet(@Payload() request: GetAgentV1Request): Promise<AgentCardV1> {
    return this.agents.get(request);
  }

  @HandleRequest(ListAgentsV1)
  onList(@Payload() request: ListAgentsV1Request): Promise<ListAgentsV1Response> {
    return this.agents.list(request);
  }

  @HandleRequest(HeartbeatAgentV1)
  onHeartbeat(@Payload() request: HeartbeatAgentV1Request): Promise<HeartbeatAgentV1Response> {
    return this.agents.heartbeat(request);
  }
}
