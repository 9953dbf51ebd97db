# A Traffic Manager configuration for Azure (azurerm 3.x / 4.x), as it is before the move.
resource "azurerm_resource_group" "example" {
  name     = "traffic"
  location = "West Europe"
}

resource "azurerm_traffic_manager_profile" "web" {
  name                   = "web"
  resource_group_name    = azurerm_resource_group.example.name
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

resource "azurerm_traffic_manager_external_endpoint" "primary" {
  name              = "primary"
  profile_id        = azurerm_traffic_manager_profile.web.id
  target            = "primary.example.com"
  priority          = 1
  endpoint_location = "West Europe"
}

resource "azurerm_traffic_manager_external_endpoint" "backup" {
  name              = "backup"
  profile_id        = azurerm_traffic_manager_profile.web.id
  target            = "backup.example.com"
  priority          = 2
  endpoint_location = "North Europe"

  timeouts {
    create = "30m"
  }
}

output "fqdn" { value = azurerm_traffic_manager_profile.web.fqdn }
