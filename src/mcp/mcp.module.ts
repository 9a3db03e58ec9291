import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import type { Port } from '../common/port';
import type { OutboundClient } from '../outbound/outbound-client';
import { ExecutorsModule } from '../executors/executors.module';
import { OUTBOUND_CLIENT } from '../executors/executors.tokens';
import { MCP_TOOL_CALLER, type McpToolCaller } from '../executors/mcp/mcp-tool-caller';
import { RegistryModule } from '../registry/registry.module';
import { McpConnections } from './mcp-connections';
import { McpEndpointController } from './mcp-endpoint.controller';
import { McpEndpointService } from './mcp-endpoint.service';
import { McpServerEntity } from './mcp-server.entity';
import { McpServersController } from './mcp-servers.controller';
import { McpServersService } from './mcp-servers.service';
import { createMcpTransport } from './mcp-transport';
import { MCP_CONNECTIONS } from './mcp.tokens';

/** MCP both ways: registered MCP servers whose tools become `mcp` tools, and ToolFlow's own tools served at /mcp. */
@Module({
  imports: [AuditModule, TypeOrmModule.forFeature([McpServerEntity]), RegistryModule, ExecutorsModule],
  controllers: [McpServersController, McpEndpointController],
  providers: [
    {
      provide: MCP_CONNECTIONS,
      inject: [APP_CONFIG, OUTBOUND_CLIENT],
      useFactory: (config: AppConfig, outbound: OutboundClient) =>
        new McpConnections({
          createTransport: (endpoint) => createMcpTransport(endpoint, outbound),
          connectTimeoutMs: config.tools.defaultTimeoutMs,
        }),
    },
    McpServersService,
    McpEndpointService,
  ],
})
export class McpModule implements OnModuleInit {
  constructor(
    @Inject(MCP_TOOL_CALLER) private readonly toolCaller: Port<McpToolCaller>,
    private readonly servers: McpServersService,
  ) {}

  /** The executors call MCP servers' tools through this module's connection pool. */
  onModuleInit(): void {
    this.toolCaller.provide(this.servers);
  }
}
