# The same configuration for tmkit: `azurerm_traffic_manager_` renamed to `tmkit_`, the resource group and
# `resource_group_name` dropped, the tmkit provider required. Nothing else changed (the timeouts block is
# accepted and has no effect).
terraform {
  required_providers {
    tmkit = { source = "tmkit/tmkit" }
  }
}

provider "tmkit" {}

resource "tmkit_profile" "web" {
  name                   = "web"
  traffic_routing_method = "Priority"

  dns_config {
    relative_name = "web"
    ttl           = 60
  }

  monitor_config {
    protocol                     = "HTTPS"
    port                         = 443
    path                         = "/health"
    interval_in_seconds          = 30
    timeout_in_seconds           = 10
    tolerated_number_of_failures = 3
    expected_status_code_ranges  = ["200-299"]
    custom_header {
      name  = "host"
      value = "www.example.com"
    }
  }

  tags = { environment = "production" }
}

resource "tmkit_external_endpoint" "primary" {
  name              = "primary"
  profile_id        = tmkit_profile.web.id
  target            = "primary.example.com"
  priority          = 1
  endpoint_location = "West Europe"
}

resource "tmkit_external_endpoint" "backup" {
  name              = "backup"
  profile_id        = tmkit_profile.web.id
  target            = "backup.example.com"
  priority          = 2
  endpoint_location = "North Europe"

  timeouts {
    create = "30m"
  }
}

output "fqdn" { value = tmkit_profile.web.fqdn }
