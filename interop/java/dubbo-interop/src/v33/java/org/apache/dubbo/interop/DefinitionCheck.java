package org.apache.dubbo.interop;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.common.utils.JsonUtils;
import org.apache.dubbo.metadata.MetadataService;
import org.apache.dubbo.metadata.definition.ServiceDefinitionBuilder;
import org.apache.dubbo.metadata.definition.TypeDefinitionBuilder;
import org.apache.dubbo.metadata.definition.model.FullServiceDefinition;
import org.apache.dubbo.metadata.definition.model.MethodDefinition;
import org.apache.dubbo.metadata.definition.model.TypeDefinition;
import org.apache.dubbo.rpc.model.FrameworkModel;

/**
 * Java Dubbo 3.3's own MetadataService client reads a provider's service definition of
 * InteropService 1.0.0 ({@code getServiceDefinition(interface, version, group)}), parses it into
 * Java's {@link FullServiceDefinition}, and compares it field by field with the definition Java
 * builds from the interface itself: canonical name, annotations, each method's name, parameter
 * types and return type, each type's items, enums and properties. The code source and the
 * parameters are not compared (a jar against a Rust crate; the provider's URL parameters).
 *
 * <pre>
 *   DefinitionCheck --url dubbo://HOST:PORT --app PROVIDER_APP [--interface NAME --version V]
 * </pre>
 *
 * {@code --interface} (and {@code --version}, none by default) check another contract interface
 * the provider serves, e.g. {@code org.apache.dubbo.interop.StreamingService}, whose
 * {@code StreamObserver} methods Java describes as any other method.
 *
 * Prints one line per difference and a last line {@code definition: equal} or
 * {@code definition: N differences}; exits 0 only when equal.
 */
public final class DefinitionCheck {
    private static final String USAGE =
            "usage: DefinitionCheck --url dubbo://HOST:PORT --app PROVIDER_APP [--interface NAME --version V]";

    private DefinitionCheck() {}

    public static void main(String[] argv) throws ClassNotFoundException {
        Args args = Args.parse(argv, Set.of("url", "app", "interface", "version"), USAGE);
        String url = Consumer.loopbackSafe(args.get("url", null));
        String app = args.get("app", null);
        String iface = args.get("interface", InteropService.class.getName());
        // InteropService is checked as 1.0.0; another interface without a version unless given.
        String version = args.get("version", args.get("interface", null) == null ? "1.0.0" : "");
        if (url == null || app == null) {
            Args.die("--url and --app are required", USAGE);
        }
        ReferenceConfig<MetadataService> ref = new ReferenceConfig<>();
        ref.setInterface(MetadataService.class);
        ref.setUrl(url);
        // The MetadataService is exported with the provider's application name as its group.
        ref.setGroup(app);
        ref.setVersion("1.0.0");
        ref.setTimeout(10000);
        ref.setCheck(false);
        ApplicationConfig application = new ApplicationConfig("definition-check");
        application.setQosEnable(false);
        DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                .application(application)
                .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE))
                .reference(ref);
        bootstrap.start();
        int differences;
        try {
            String json = ref.get().getServiceDefinition(iface, version, "");
            if (json == null || json.isEmpty()) {
                System.out.println("the provider answered no service definition");
                differences = 1;
            } else {
                FullServiceDefinition served = JsonUtils.toJavaObject(json, FullServiceDefinition.class);
                TypeDefinitionBuilder.initBuilders(FrameworkModel.defaultModel());
                FullServiceDefinition own = ServiceDefinitionBuilder.buildFullDefinition(Class.forName(iface));
                differences = compare(own, served);
                System.out.println("served by " + served.getCodeSource() + ": " + served.getMethods().size()
                        + " methods, " + served.getTypes().size() + " types");
            }
        } finally {
            bootstrap.stop();
        }
        System.out.println(differences == 0 ? "definition: equal" : "definition: " + differences + " differences");
        System.exit(differences == 0 ? 0 : 1);
    }

    private static int compare(FullServiceDefinition want, FullServiceDefinition got) {
        int differences = 0;
        differences += same("canonicalName", want.getCanonicalName(), got.getCanonicalName());
        differences += same("annotations", want.getAnnotations(), got.getAnnotations());
        differences += same("methods", methods(want.getMethods()), methods(got.getMethods()));
        differences += same("types", types(want.getTypes()), types(got.getTypes()));
        return differences;
    }

    private static int same(String what, Object want, Object got) {
        if (want.equals(got)) {
            return 0;
        }
        System.out.println(what + " differ:\n  Java: " + want + "\n  served: " + got);
        return 1;
    }

    /** Methods as sorted text lines: Java's reflection order is not fixed. */
    private static Set<String> methods(List<MethodDefinition> methods) {
        Set<String> out = new TreeSet<>();
        for (MethodDefinition m : methods) {
            out.add(m.getName() + "(" + String.join(",", m.getParameterTypes()) + ") " + m.getReturnType());
        }
        return out;
    }

    private static Set<String> types(List<TypeDefinition> types) {
        Set<String> out = new TreeSet<>();
        for (TypeDefinition t : types) {
            Map<String, String> properties = new TreeMap<>(t.getProperties());
            out.add(t.getType() + " items=" + t.getItems() + " enums=" + t.getEnums() + " properties=" + properties);
        }
        return out;
    }
}
