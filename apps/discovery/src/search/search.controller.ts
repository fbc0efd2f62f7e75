import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { SearchAgentsV1, SearchAgentsV1Request, type SearchAgentsV1Response } from '@ioa/contracts';
import { HandleRequest } from '@ioa/messaging';
import { SearchService } from './search.service.js';

@Controller()
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @HandleRequest(SearchAgentsV1)
  onSearch(@Payload() request: SearchAgentsV1Request): Promise<SearchAgentsV1Response> {
    return this.search.search(request);
  }
}
