import { Controller, Get } from '@nestjs/common';
import { RequireScope } from '../auth/require-scope.decorator';
import { ClusterService } from './cluster.service';

/** The replicas on this database, the lease holders, and which channels this replica receives for. */
@Controller('v1/cluster')
@RequireScope('admin')
export class ClusterController {
  constructor(private readonly cluster: ClusterService) {}

  @Get()
  view() {
    return this.cluster.view();
  }
}
