// Dashboard support routes (decisions §9). Each group is its own plugin; createApp mounts them.

export { configRoutes } from './config-routes.ts'
export { GeoLocator } from './geo.ts'
export { geoRoutes } from './geo-routes.ts'
export { layoutRoutes } from './layout-routes.ts'
export { servicesRoutes } from './services-routes.ts'
export { sessionLocationsRoutes } from './session-locations-routes.ts'
export { socialRoutes } from './social-routes.ts'
