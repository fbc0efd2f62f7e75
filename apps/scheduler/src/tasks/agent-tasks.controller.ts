import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ReportOwnTaskV1, ReportTaskV1Request, type TaskV1 } from '@ioa/contracts';
import { HandleRequest } from '@ioa/messaging';
import { TasksService } from './tasks.service.js';

/**
 * An agent reports its task on `ioa.agent.<its id>.task.report.v1`: the messaging layer has made `agentId` the
 * subject's agent (or refused a payload naming another), and the task's rules accept a report only from the task's
 * assignee (FORBIDDEN otherwise).
 */
@Controller()
export class AgentTasksController {
  constructor(private readonly tasks: TasksService) {}

  @HandleRequest(ReportOwnTaskV1)
  onReportTask(@Payload() request: ReportTaskV1Request): Promise<TaskV1> {
    return this.tasks.report(request);
  }
}
