package emulator.spring;

import com.azure.cosmos.CosmosClientBuilder;
import com.azure.spring.data.cosmos.config.AbstractCosmosConfiguration;
import com.azure.spring.data.cosmos.config.CosmosConfig;
import com.azure.spring.data.cosmos.core.mapping.EnableCosmosAuditing;
import com.azure.spring.data.cosmos.repository.config.EnableCosmosRepositories;
import emulator.harness.Emulator;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.domain.AuditorAware;

/**
 * Spring Data Cosmos as its docs set it up, pointed at the emulator: a CosmosClientBuilder in Gateway
 * mode on the HTTPS endpoint (the certificate is in the JVM trust store), repositories and auditing.
 */
@Configuration
@EnableCosmosRepositories(basePackageClasses = PersonRepository.class)
@EnableCosmosAuditing(auditorAwareRef = "auditor")
public class SpringConfig extends AbstractCosmosConfiguration {
    /** The database of this run and the current auditor (set by the test before the context starts). */
    static volatile String database;
    static final AtomicReference<String> CURRENT_USER = new AtomicReference<>("alice");

    @Bean
    public CosmosClientBuilder cosmosClientBuilder() {
        Emulator e = Emulator.shared();
        CosmosClientBuilder b = new CosmosClientBuilder().endpoint(e.endpoint).key(e.key).contentResponseOnWriteEnabled(true);
        return Emulator.DIRECT ? b.directMode() : b.gatewayMode();  // the suite's connection mode
    }

    @Bean
    @Override
    public CosmosConfig cosmosConfig() {
        return CosmosConfig.builder().enableQueryMetrics(true).build();
    }

    @Bean
    public AuditorAware<String> auditor() {
        return () -> Optional.ofNullable(CURRENT_USER.get());
    }

    @Override
    protected String getDatabaseName() {
        return database;
    }
}
