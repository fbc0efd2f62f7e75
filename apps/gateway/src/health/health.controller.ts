import { Controller, Get, HttpStatus, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { PlatformHealthDto } from './platform-health.dto.js';
import { PlatformHealthService } from './platform-health.service.js';

/** The part of the response object this controller uses (Express's, without depending on its types). */
interface StatusSettable {
  status(code: number): unknown;
}

@ApiTags('health')
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
}
