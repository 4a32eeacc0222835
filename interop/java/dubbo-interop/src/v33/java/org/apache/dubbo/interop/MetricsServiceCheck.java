package org.apache.dubbo.interop;

import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.metrics.model.MetricsCategory;
import org.apache.dubbo.metrics.service.MetricsEntity;
import org.apache.dubbo.metrics.service.MetricsService;

/**
 * Calls a provider's built-in MetricsService with Java Dubbo's own interface and types, and
 * checks the provider's request count of one method.
 *
 * <pre>
 *   MetricsServiceCheck URL APPLICATION METHOD EXPECTED
 * </pre>
 *
 * <p>Prints every REQUESTS entity of METHOD, then {@code PASS} when
 * {@code dubbo.provider.requests.total} of METHOD is EXPECTED (exit 0), else {@code FAIL} (exit 1).
 */
public final class MetricsServiceCheck {

    private MetricsServiceCheck() {
    }

    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println("usage: MetricsServiceCheck URL APPLICATION METHOD EXPECTED");
            System.exit(2);
        }
        // Java's own MetricsEntity does not implement Serializable, so a strict Java consumer
        // refuses it from any provider, Java's included; callers of the service relax the check.
        System.setProperty("dubbo.application.check-serializable", "false");
        System.setProperty("dubbo.application.serialize-check-status", "WARN");
        System.setProperty("dubbo.hessian.allowNonSerializable", "true");
        Debug.configureLogging();
        String url = Consumer.loopbackSafe(args[0]);
        String method = args[2];
        long expected = Long.parseLong(args[3]);
        ApplicationConfig application = new ApplicationConfig("metrics-service-check");
        application.setQosEnable(false);
        application.setCheckSerializable(false);
        application.setSerializeCheckStatus("WARN");
        ReferenceConfig<MetricsService> reference = new ReferenceConfig<>();
        reference.setInterface(MetricsService.class);
        reference.setUrl(url);
        reference.setGroup(args[1]);
        reference.setVersion("1.0.0");
        reference.setTimeout(5000);
        reference.setRetries(0);
        DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                .application(application)
                .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE))
                .reference(reference);
        bootstrap.start();
        int code = 1;
        try {
            Map<MetricsCategory, List<MetricsEntity>> metrics =
                    reference.get().getMetricsByCategories(Collections.singletonList(MetricsCategory.REQUESTS));
            Object total = null;
            for (Map.Entry<MetricsCategory, List<MetricsEntity>> e : metrics.entrySet()) {
                for (MetricsEntity entity : e.getValue()) {
                    Map<String, String> tags = entity.getTags();
                    if (tags == null || !method.equals(tags.get("method"))) {
                        continue;
                    }
                    System.out.println(e.getKey() + " " + entity.getName() + " " + tags + " = " + entity.getValue());
                    if ("dubbo.provider.requests.total".equals(entity.getName())) {
                        total = entity.getValue();
                    }
                }
            }
            if (total instanceof Number && ((Number) total).longValue() == expected) {
                System.out.println("PASS dubbo.provider.requests.total of " + method + " = " + expected);
                code = 0;
            } else {
                System.out.println("FAIL dubbo.provider.requests.total of " + method + " = " + total
                        + ", expected " + expected);
            }
        } catch (RuntimeException e) {
            System.out.println("FAIL " + e);
        } finally {
            bootstrap.stop();
        }
        System.exit(code);
    }
}
