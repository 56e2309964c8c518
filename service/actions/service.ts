// `service install|status|uninstall`, from every front end: `dogsled serve` under the user's service
// manager (service/install/manager.ts; systemd --user, launchd). The front end names the platform in
// the IO (ServiceManagerIO): it is the process's own fact.

export type { InstallReport, ServiceReport, UninstallReport } from '../install/manager.js';
export { installService, serviceStatus, uninstallService } from '../install/manager.js';
export type { ServiceManagerIO } from '../install/service-files.js';
