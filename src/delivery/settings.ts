import type { Config } from '../config.js';
import type { DeliverySettings } from './types.js';

export function deliverySettings(config: Config): DeliverySettings {
  return {
    timeoutMs: config.delivery.timeoutMs,
    allowPrivateTargets: config.allowPrivateTargets,
    smtpUrl: config.smtpUrl,
    emailFrom: config.emailFrom,
    telegramApiOrigin: config.telegramApiOrigin,
  };
}
