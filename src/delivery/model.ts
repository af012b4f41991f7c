import type { ChannelSettings } from '../channels/model.js';
import type { Config } from '../config.js';

/** Configuration the delivery path and its channels run with (http: the service's address, for links in messages). */
export type DeliverySettings = ChannelSettings & Pick<Config, 'http'>;
