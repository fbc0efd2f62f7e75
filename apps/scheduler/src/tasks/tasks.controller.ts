import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { GetTaskV1, GetTaskV1Request, ReportTaskV1, ReportTaskV1Request, type TaskV1 } from '@ioa/contracts';
import { HandleRequest } from '@ioa/messaging';
import { TasksService } from './tasks.service.js';

@Controller()
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @HandleRequest(ReportTaskV1)
  onReportTask(@Payload() request: ReportTaskV1Request): Promise<TaskV1> {
    return this.tasks.report(request);
  }

  @HandleRequest(GetTaskV1)
  onGetTask(@Payload() request: GetTaskV1Request): Promise<TaskV1> {
    return this.tasks.get(request.taskId);
  }
}
