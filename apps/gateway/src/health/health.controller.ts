import { Controller, Get, HttpStatus, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/access.decorators.js';
import { PlatformHealthDto } from './platform-health.dto.js';
import { PlatformHealthService } from './platform-health.service.js';

/** The part of the response object this controller uses (Express's, without depending on its types). */
interface StatusSettable {
  status(code: number): unknown;
}

// Liveness and readiness probes answer without credentials (kubelets and load balancers have none), so no account's
// rate limit counts them; they say which parts are up, nothing about anyone's goals or agents.
@ApiTags('health')
@Public()
@Controller({ path: 'health', version: VERSION_NEUTRAL })
export class HealthController {
  constructor(private readonly health: PlatformHealthService) {}

  @Get()
  @ApiOperation({ summary: 'Reachability of NATS, the services and their databases' })
  @ApiOkResponse({ type: PlatformHealthDto, description: 'Everything the API needs is up.' })
  @ApiServiceUnavailableResponse({
    type: PlatformHealthDto,
    description: 'Degraded; the body says what is down.',
  })
  async check(@Res({ passthrough: true }) response: StatusSettable): Promise<PlatformHealthDto> {
    const health = await this.health.check();
    // Load balancers and orchestrators read the status code, people read the body: both get the verdict.
    response.status(health.status === 'ok' ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    return health;
  }

  /** For readiness probes: whether this gateway can serve the API, which a stuck consumer elsewhere does not change. */
  @Get('ready')
  @ApiOperation({ summary: 'Whether the gateway can serve the API (readiness): 200 or 503, with the same body' })
  @ApiOkResponse({ type: PlatformHealthDto, description: 'NATS, the registry and discovery answer.' })
  @ApiServiceUnavailableResponse({ type: PlatformHealthDto, description: 'Not ready; the body says what is down.' })
  async ready(@Res({ passthrough: true }) response: StatusSettable): Promise<PlatformHealthDto> {
    const health = await this.health.check();
    response.status(health.ready ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    return health;
  }
}
